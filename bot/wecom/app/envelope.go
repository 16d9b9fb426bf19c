package app

import (
	"encoding/xml"
	"fmt"

	"github.com/wecodex/wecodex/bot/wecom"
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

// The passive replies to a template_card_event, from WeCom's 被动回复消息格式 →
// 模板卡片更新消息 (企业内部开发
// https://developer.work.weixin.qq.com/document/path/90241; its 服务商代开发
// twin https://developer.work.weixin.qq.com/document/path/96469), read
// through SDKs that implement it, as the page itself could not be fetched
// here: update_button is one <Button> holding <ReplaceName> (binarywang/WxJava
// WxCpXmlOutUpdateBtnMessage; the Elixir wechat_sdk's quote of the page);
// update_template_card is one <TemplateCard> in which a list repeats its
// element once per entry, with no wrapper: one <ButtonList> with
// <Text>/<Style>/<Key> per button (shenghui0779/sdk-go
// corp/message/reply_test.go, the page's button_interaction example).

// buttonReply greys the clicked button out under a new text (更新点击用户的按钮文案).
type buttonReply struct {
	XMLName      xml.Name `xml:"xml"`
	ToUserName   cdata    `xml:"ToUserName"`
	FromUserName cdata    `xml:"FromUserName"`
	CreateTime   int64    `xml:"CreateTime"`
	MsgType      cdata    `xml:"MsgType"`
	ReplaceName  cdata    `xml:"Button>ReplaceName"`
}

// replaceButton is the passive reply XML that turns the clicked button into
// a grey, unclickable label name, from the app (corpID) to user.
func replaceButton(corpID, user string, created int64, name string) ([]byte, error) {
	out, err := xml.Marshal(buttonReply{ToUserName: cdata{user}, FromUserName: cdata{corpID}, CreateTime: created,
		MsgType: cdata{"update_button"}, ReplaceName: cdata{name}})
	if err != nil {
		return nil, fmt.Errorf("build the button reply: %w", err)
	}
	return out, nil
}

// cardReply replaces the clicked card (更新点击用户的整张卡片).
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
func replaceCard(corpID, user string, created int64, tc wecom.TemplateCard) ([]byte, error) {
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
