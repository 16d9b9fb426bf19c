package playground

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/wecodex/wecodex/internal/wecomtest"
)

// maxAttachBytes caps a file attached on the page: WeCom's own cap on an
// image is 10 MB, on a file 20 MB.
const maxAttachBytes = 20 << 20

// outgoing is one message the page sends: text, or a picture (with text: a
// mixed message, as images come from groups), or a file.
type outgoing struct {
	Text    string
	MsgType string // "" is text
	Link    wecomtest.MediaLink
}

// webhook is o as WeCom POSTs it to the webhook.
func (o outgoing) webhook(id, user string) wecomtest.Message {
	m := wecomtest.Message{MsgID: id, From: user, MsgType: o.MsgType, Text: o.Text, Link: o.Link}
	if o.MsgType == "mixed" {
		m.Items = []wecomtest.Item{{Text: o.Text}, {ImageURL: o.Link.URL, AESKey: o.Link.AESKey}}
	}
	return m
}

// longConn is o as WeCom pushes it on the long connection.
func (o outgoing) longConn(id, user string) wecomtest.LongConnMessage {
	w := o.webhook(id, user)
	return wecomtest.LongConnMessage{MsgID: id, UserID: user, Text: w.Text, MsgType: w.MsgType, Items: w.Items, Link: w.Link}
}

type attachRequest struct {
	Text string `json:"text"`
	Kind string `json:"kind"` // image | file
	Name string `json:"name"`
	Data string `json:"data"` // base64 of the file
}

// serveAttach takes a picture or a file from the composer, as JSON like
// /send (so a cross-origin form cannot post it).
func (p *Playground) serveAttach(w http.ResponseWriter, r *http.Request) {
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		writeSend(w, http.StatusUnsupportedMediaType, sendResponse{Error: `send JSON: {"kind": "image"|"file", "name", "data": base64, "text"}`})
		return
	}
	var req attachRequest
	limit := int64(base64.StdEncoding.EncodedLen(maxAttachBytes)) + 2*maxPromptBytes
	if err := json.NewDecoder(io.LimitReader(r.Body, limit)).Decode(&req); err != nil {
		writeSend(w, http.StatusBadRequest, sendResponse{Error: "bad JSON body (or a file over 20 MiB): " + err.Error()})
		return
	}
	data, err := base64.StdEncoding.DecodeString(req.Data)
	if err != nil {
		writeSend(w, http.StatusBadRequest, sendResponse{Error: "data is not base64: " + err.Error()})
		return
	}
	id, err := p.Attach(req.Kind, req.Name, req.Text, data)
	if err != nil {
		writeSend(w, http.StatusBadRequest, sendResponse{Error: err.Error()})
		return
	}
	writeSend(w, http.StatusAccepted, sendResponse{ID: id})
}

// Attach plays a message with a picture (kind "image"; with text it is a
// mixed message) or a file (kind "file"; WeCom sends a file alone, so text
// is refused). The playground serves the file encrypted as WeCom's media
// server does: with the bot's EncodingAESKey for the webhook, with a key of
// its own named in the message on the long connection.
func (p *Playground) Attach(kind, name, text string, data []byte) (string, error) {
	text = strings.TrimSpace(text)
	o := outgoing{Text: text}
	switch {
	case kind == "image" && text == "":
		o.MsgType = "image"
	case kind == "image":
		o.MsgType = "mixed"
	case kind == "file" && text != "":
		return "", errors.New("WeCom sends a file alone: send the text as its own message")
	case kind == "file":
		o.MsgType = "file"
	default:
		return "", fmt.Errorf("kind %q: want image or file", kind)
	}
	if len(data) == 0 || len(data) > maxAttachBytes {
		return "", fmt.Errorf("the file has %d bytes; attach 1 byte to 20 MiB", len(data))
	}
	if len(text) > maxPromptBytes {
		return "", fmt.Errorf("the message is longer than %d bytes", maxPromptBytes)
	}
	f := wecomtest.MediaFile{Name: name, Data: data}
	if p.lc == nil {
		f.Key = p.mediaKey
	}
	link, err := p.media.Add(f)
	if err != nil {
		return "", err
	}
	o.Link = link
	label := "[" + kind + ": " + name + "]"
	if text != "" {
		label += " " + text
	}
	return p.start(label, o)
}

// mediaKey is the 32-byte key an EncodingAESKey encodes (base64 without
// its "="), or nil for one that does not.
func mediaKey(encodingAESKey string) []byte {
	k, err := base64.StdEncoding.DecodeString(encodingAESKey + "=")
	if err != nil || len(k) != 32 {
		return nil
	}
	return k
}
