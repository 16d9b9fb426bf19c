package app

import (
	"encoding/xml"
	"fmt"

	"github.com/wecodex/wecodex/bot/wecom"
	"github.com/wecodex/wecodex/cards"
)

// envelope is a callback POST body: the ciphertext and, in the clear, whom
// it is for.
type envelope struct {
	XMLName    xml.Name `xml:"xml"`
	ToUserName string   `xml:"ToUserName"`
	AgentID    string   `xml:"AgentID"`
	Encrypt    string   `xml:"Encrypt"`
}

// openEnvelope verifies a callback body's signature, then decrypts it; the
// signature is checked before any decryption work.
func openEnvelope(c *wecom.Crypter, q wecom.Query, body []byte) ([]byte, error) {
	var env envelope
	if err := xml.Unmarshal(body, &env); err != nil {
		return nil, fmt.Errorf("%w: body is not the XML envelope: %v", wecom.ErrMalformed, err)
	}
	if env.Encrypt == "" {
		return nil, fmt.Errorf("%w: body has no Encrypt", wecom.ErrMalformed)
	}
	if err := c.Verify(q.Signature, q.Timestamp, q.Nonce, env.Encrypt); err != nil {
		return nil, fmt.Errorf("open callback: %w", err)
	}
	plain, err := c.Decrypt(env.Encrypt)
	if err != nil {
		return nil, fmt.Errorf("open callback: %w", err)
	}
	return plain, nil
}

type cdata struct {
	Text string `xml:",cdata"`
}

// sealed is a passive reply's encrypted envelope (WeCom's
// AES_TEXT_RESPONSE_TEMPLATE).
type sealed struct {
	XMLName      xml.Name `xml:"xml"`
	Encrypt      cdata    `xml:"Encrypt"`
	MsgSignature cdata    `xml:"MsgSignature"`
	TimeStamp    string   `xml:"TimeStamp"`
	Nonce        cdata    `xml:"Nonce"`
}

// seal encrypts a passive reply and signs it with the callback's own
// timestamp and nonce.
func seal(c *wecom.Crypter, plain []byte, timestamp, nonce string) ([]byte, error) {
	enc, err := c.Encrypt(plain)
	if err != nil {
		return nil, fmt.Errorf("seal passive reply: %w", err)
	}
	out, err := xml.Marshal(sealed{Encrypt: cdata{enc}, MsgSignature: cdata{c.Signature(timestamp, nonce, enc)},
		TimeStamp: timestamp, Nonce: cdata{nonce}})
	if err != nil {
		return nil, fmt.Errorf("seal passive reply: %w", err)
	}
	return out, nil
}

// cardReply is the passive reply that replaces a clicked card (DOC 90241,
// 更新为新的卡片): list fields repeat their element once per entry.
type cardReply struct {
	XMLName      xml.Name `xml:"xml"`
	ToUserName   cdata    `xml:"ToUserName"`
	FromUserName cdata    `xml:"FromUserName"`
	CreateTime   int64    `xml:"CreateTime"`
	MsgType      cdata    `xml:"MsgType"`
	TemplateCard xmlCard  `xml:"TemplateCard"`
}

type xmlCard struct {
	CardType     cdata       `xml:"CardType"`
	MainTitle    xmlTitle    `xml:"MainTitle"`
	SubTitleText *cdata      `xml:"SubTitleText,omitempty"`
	TaskID       cdata       `xml:"TaskId"`
	ButtonList   []xmlButton `xml:"ButtonList"`
}

type xmlTitle struct {
	Title cdata  `xml:"Title"`
	Desc  *cdata `xml:"Desc,omitempty"`
}

type xmlButton struct {
	Text  cdata `xml:"Text"`
	Style int   `xml:"Style"`
	Key   cdata `xml:"Key"`
}

// replaceCard is the passive reply XML that replaces the clicked card with
// tc, from the app (corpID) to user.
func replaceCard(corpID, user string, created int64, tc cards.TemplateCard) ([]byte, error) {
	x := xmlCard{CardType: cdata{tc.CardType}, MainTitle: xmlTitle{Title: cdata{tc.MainTitle.Title}}, TaskID: cdata{tc.TaskID}}
	if tc.MainTitle.Desc != "" {
		x.MainTitle.Desc = &cdata{tc.MainTitle.Desc}
	}
	if tc.SubTitleText != "" {
		x.SubTitleText = &cdata{tc.SubTitleText}
	}
	for _, b := range tc.ButtonList {
		x.ButtonList = append(x.ButtonList, xmlButton{Text: cdata{b.Text}, Style: b.Style, Key: cdata{b.Key}})
	}
	out, err := xml.Marshal(cardReply{ToUserName: cdata{user}, FromUserName: cdata{corpID}, CreateTime: created,
		MsgType: cdata{"update_template_card"}, TemplateCard: x})
	if err != nil {
		return nil, fmt.Errorf("build the card reply: %w", err)
	}
	return out, nil
}
