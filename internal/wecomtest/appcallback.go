package wecomtest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"sync/atomic"
	"time"
)

// AppConfig names the self-built app WeCom calls back: its corp, agent and
// "receive messages" credentials, and the callback URL (wecom.app.path on
// the bot's server).
type AppConfig struct {
	URL            string
	CorpID         string
	AgentID        int64
	Token          string
	EncodingAESKey string
	// Client sends the callbacks; nil means a client with WeCom's 5 s wait.
	Client *http.Client
	// Now stamps the callbacks; nil means time.Now.
	Now func() time.Time
}

// AppCallbacks plays WeCom calling a self-built app's callback URL: it
// builds the XML messages and events, encrypts and signs them as WeCom does,
// and opens the encrypted passive replies.
type AppCallbacks struct {
	cfg    AppConfig
	crypto *crypter
	msgID  atomic.Int64
}

// NewAppCallbacks checks cfg's key.
func NewAppCallbacks(cfg AppConfig) (*AppCallbacks, error) {
	c, err := newCrypter(cfg.Token, cfg.EncodingAESKey, cfg.CorpID)
	if err != nil {
		return nil, err
	}
	if cfg.Client == nil {
		cfg.Client = &http.Client{Timeout: ReplyTimeout}
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	a := &AppCallbacks{cfg: cfg, crypto: c}
	a.msgID.Store(7_300_000_000_000_000_000)
	return a, nil
}

// AppMessage is one callback's fields, with WeCom's XML names (DOC 90239,
// 90240). Zero fields are left out; MsgID 0 on a message gets a fresh id.
type AppMessage struct {
	XMLName      xml.Name  `xml:"xml"`
	ToUserName   appCDATA  `xml:"ToUserName"`
	FromUserName appCDATA  `xml:"FromUserName"`
	CreateTime   int64     `xml:"CreateTime"`
	MsgType      appCDATA  `xml:"MsgType"`
	Content      *appCDATA `xml:"Content,omitempty"`
	PicURL       *appCDATA `xml:"PicUrl,omitempty"`
	MediaID      *appCDATA `xml:"MediaId,omitempty"`
	Format       *appCDATA `xml:"Format,omitempty"`
	Recognition  *appCDATA `xml:"Recognition,omitempty"`
	FileName     *appCDATA `xml:"FileName,omitempty"`
	Event        *appCDATA `xml:"Event,omitempty"`
	EventKey     *appCDATA `xml:"EventKey,omitempty"`
	TaskID       *appCDATA `xml:"TaskId,omitempty"`
	CardType     *appCDATA `xml:"CardType,omitempty"`
	ResponseCode *appCDATA `xml:"ResponseCode,omitempty"`
	MsgID        int64     `xml:"MsgId,omitempty"`
	AgentID      int64     `xml:"AgentID"`
}

type appCDATA struct {
	Text string `xml:",cdata"`
}

func appField(s string) *appCDATA {
	if s == "" {
		return nil
	}
	return &appCDATA{s}
}

// AppText is a text message from user.
func AppText(user, content string) AppMessage {
	return AppMessage{FromUserName: appCDATA{user}, MsgType: appCDATA{"text"}, Content: &appCDATA{content}}
}

// AppImage is a picture from user, fetched with media/get by mediaID.
func AppImage(user, picURL, mediaID string) AppMessage {
	return AppMessage{FromUserName: appCDATA{user}, MsgType: appCDATA{"image"}, PicURL: appField(picURL), MediaID: appField(mediaID)}
}

// AppVoice is a voice message: recognition is WeCom's transcript ("" when
// the app has speech recognition off).
func AppVoice(user, mediaID, recognition string) AppMessage {
	return AppMessage{FromUserName: appCDATA{user}, MsgType: appCDATA{"voice"}, MediaID: appField(mediaID), Format: appField("amr"), Recognition: appField(recognition)}
}

// AppFile is a file message (undocumented for apps; sent as peers parse it).
func AppFile(user, mediaID, name string) AppMessage {
	return AppMessage{FromUserName: appCDATA{user}, MsgType: appCDATA{"file"}, MediaID: appField(mediaID), FileName: appField(name)}
}

// AppCardClick is a template_card_event: user clicked the button key of
// the card taskID; responseCode updates that card once.
func AppCardClick(user, key, taskID, responseCode string) AppMessage {
	return AppMessage{FromUserName: appCDATA{user}, MsgType: appCDATA{"event"}, Event: appField("template_card_event"),
		EventKey: appField(key), TaskID: appField(taskID), CardType: appField("button_interaction"), ResponseCode: appField(responseCode)}
}

// AppReply is what the app answered a callback.
type AppReply struct {
	Status int
	// Plain is the decrypted passive reply XML; nil for an empty answer.
	Plain []byte
	// Body is the raw answer.
	Body []byte
}

// Send fills m's corp, agent, time and (for a message) id, and POSTs it.
func (a *AppCallbacks) Send(ctx context.Context, m AppMessage) (AppReply, error) {
	m.ToUserName = appCDATA{a.cfg.CorpID}
	m.AgentID = a.cfg.AgentID
	if m.CreateTime == 0 {
		m.CreateTime = a.cfg.Now().Unix()
	}
	if m.MsgID == 0 && m.MsgType.Text != "event" {
		m.MsgID = a.msgID.Add(1)
	}
	plain, err := xml.Marshal(m)
	if err != nil {
		return AppReply{}, err
	}
	return a.Post(ctx, plain)
}

// NextMsgID is the MsgId the next message Send fills in.
func (a *AppCallbacks) NextMsgID() int64 { return a.msgID.Load() + 1 }

// Post encrypts and signs plain as a callback body and POSTs it.
func (a *AppCallbacks) Post(ctx context.Context, plain []byte) (AppReply, error) {
	body, q, err := a.Seal(plain)
	if err != nil {
		return AppReply{}, err
	}
	return a.PostRaw(ctx, q, body)
}

// Seal is plain as WeCom POSTs it: the XML envelope and the signed query.
func (a *AppCallbacks) Seal(plain []byte) ([]byte, url.Values, error) {
	enc, err := a.crypto.encrypt(plain)
	if err != nil {
		return nil, nil, err
	}
	ts := strconv.FormatInt(a.cfg.Now().Unix(), 10)
	nonce := hex.EncodeToString(appRandom(5))
	env := struct {
		XMLName    xml.Name `xml:"xml"`
		ToUserName appCDATA `xml:"ToUserName"`
		AgentID    appCDATA `xml:"AgentID"`
		Encrypt    appCDATA `xml:"Encrypt"`
	}{ToUserName: appCDATA{a.cfg.CorpID}, AgentID: appCDATA{strconv.FormatInt(a.cfg.AgentID, 10)}, Encrypt: appCDATA{enc}}
	body, err := xml.Marshal(env)
	if err != nil {
		return nil, nil, err
	}
	q := url.Values{"msg_signature": {a.crypto.signature(ts, nonce, enc)}, "timestamp": {ts}, "nonce": {nonce}}
	return body, q, nil
}

// PostRaw POSTs body with query q as it is: for forged signatures and
// oversized bodies.
func (a *AppCallbacks) PostRaw(ctx context.Context, q url.Values, body []byte) (AppReply, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.cfg.URL+"?"+q.Encode(), bytes.NewReader(body))
	if err != nil {
		return AppReply{}, err
	}
	req.Header.Set("Content-Type", "text/xml")
	resp, err := a.cfg.Client.Do(req)
	if err != nil {
		return AppReply{}, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return AppReply{}, err
	}
	r := AppReply{Status: resp.StatusCode, Body: raw}
	if resp.StatusCode != http.StatusOK || len(bytes.TrimSpace(raw)) == 0 || string(raw) == "success" {
		return r, nil
	}
	r.Plain, err = a.open(raw)
	return r, err
}

// open verifies and decrypts a passive reply envelope.
func (a *AppCallbacks) open(raw []byte) ([]byte, error) {
	var env struct {
		Encrypt      string `xml:"Encrypt"`
		MsgSignature string `xml:"MsgSignature"`
		TimeStamp    string `xml:"TimeStamp"`
		Nonce        string `xml:"Nonce"`
	}
	if err := xml.Unmarshal(raw, &env); err != nil {
		return nil, fmt.Errorf("wecomtest app: passive reply is not the XML envelope: %w", err)
	}
	if want := a.crypto.signature(env.TimeStamp, env.Nonce, env.Encrypt); env.MsgSignature != want {
		return nil, fmt.Errorf("wecomtest app: passive reply signature %q, want %q", env.MsgSignature, want)
	}
	return a.crypto.decrypt(env.Encrypt)
}

// VerifyURL is WeCom's GET URL check with echo as the plaintext; it returns
// the status and body the app answered.
func (a *AppCallbacks) VerifyURL(ctx context.Context, echo string) (int, string, error) {
	enc, err := a.crypto.encrypt([]byte(echo))
	if err != nil {
		return 0, "", err
	}
	ts := strconv.FormatInt(a.cfg.Now().Unix(), 10)
	nonce := hex.EncodeToString(appRandom(5))
	q := url.Values{"msg_signature": {a.crypto.signature(ts, nonce, enc)}, "timestamp": {ts}, "nonce": {nonce}, "echostr": {enc}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.cfg.URL+"?"+q.Encode(), nil)
	if err != nil {
		return 0, "", err
	}
	resp, err := a.cfg.Client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

func appRandom(n int) []byte {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return b
}
