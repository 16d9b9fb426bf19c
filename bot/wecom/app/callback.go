package app

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/wecodex/wecodex/bot/wecom"
)

// Kind says what a callback asks of the bot.
type Kind string

const (
	KindMessage Kind = "message" // text, image, voice, file
	KindClick   Kind = "click"   // template_card_event: a card's button
	KindEvent   Kind = "event"   // any other event: answered, not acted on
)

// ErrUnsupported is a well-formed callback of a msgtype the channel does not
// handle (video, location, link): answer it normally.
var ErrUnsupported = errors.New("wecom app: unsupported callback")

// Callback is one decrypted app callback (WeCom's XML, DOC 90239/90240).
type Callback struct {
	Kind       Kind
	MsgType    string
	MsgID      string // messages: WeCom retries, intake dedupes on it
	User       string // FromUserName
	CreateTime int64
	AgentID    int64
	Content    string // text
	PicURL     string // image
	MediaID    string // image, voice, file
	// Recognition is a voice message's transcript, when the app has speech
	// recognition on.
	Recognition string
	FileName    string
	// A click: the button's key, the card's task_id and the code that may
	// update the card once.
	EventKey, TaskID, ResponseCode string
	Event                          string
}

// wireCallback is the decrypted XML as WeCom sends it.
type wireCallback struct {
	XMLName      xml.Name `xml:"xml"`
	ToUserName   string   `xml:"ToUserName"`
	FromUserName string   `xml:"FromUserName"`
	CreateTime   string   `xml:"CreateTime"`
	MsgType      string   `xml:"MsgType"`
	Content      string   `xml:"Content"`
	MsgID        string   `xml:"MsgId"`
	AgentID      string   `xml:"AgentID"`
	PicURL       string   `xml:"PicUrl"`
	MediaID      string   `xml:"MediaId"`
	Recognition  string   `xml:"Recognition"`
	FileName     string   `xml:"FileName"`
	Event        string   `xml:"Event"`
	EventKey     string   `xml:"EventKey"`
	TaskID       string   `xml:"TaskId"`
	ResponseCode string   `xml:"ResponseCode"`
}

func malformed(format string, a ...any) error {
	return fmt.Errorf("%w: %s", wecom.ErrMalformed, fmt.Sprintf(format, a...))
}

// ParseCallback decodes the decrypted XML of a callback to the app corpID,
// agentID. Malformed input yields an error wrapping wecom.ErrMalformed that
// names the field; an unhandled msgtype yields ErrUnsupported with the
// common fields set.
func ParseCallback(plain []byte, corpID string, agentID int64) (Callback, error) {
	var w wireCallback
	dec := xml.NewDecoder(bytes.NewReader(plain))
	if err := dec.Decode(&w); err != nil {
		return Callback{}, malformed("callback is not an <xml> document: %v", err)
	}
	if w.ToUserName != corpID {
		return Callback{}, malformed("ToUserName is %q, not this corp", clip(w.ToUserName))
	}
	agent, err := strconv.ParseInt(strings.TrimSpace(w.AgentID), 10, 64)
	if err != nil || agent != agentID {
		return Callback{}, malformed("AgentID is %q, not this app's %d", clip(w.AgentID), agentID)
	}
	if w.FromUserName == "" {
		return Callback{}, malformed("FromUserName is missing")
	}
	created, _ := strconv.ParseInt(strings.TrimSpace(w.CreateTime), 10, 64)
	cb := Callback{MsgType: w.MsgType, MsgID: strings.TrimSpace(w.MsgID), User: w.FromUserName, CreateTime: created,
		AgentID: agent, Content: w.Content, PicURL: w.PicURL, MediaID: w.MediaID, Recognition: w.Recognition,
		FileName: w.FileName, Event: w.Event, EventKey: w.EventKey, TaskID: w.TaskID, ResponseCode: w.ResponseCode}
	if w.MsgType == "event" {
		return event(cb)
	}
	return userMessage(cb)
}

func event(cb Callback) (Callback, error) {
	if cb.Event == "" {
		return Callback{}, malformed("Event is missing in an event")
	}
	cb.Kind = KindEvent
	if cb.Event == "template_card_event" {
		if cb.EventKey == "" {
			return Callback{}, malformed("EventKey is missing in a template_card_event")
		}
		cb.Kind = KindClick
	}
	return cb, nil
}

func userMessage(cb Callback) (Callback, error) {
	if cb.MsgType == "" {
		return Callback{}, malformed("MsgType is missing")
	}
	if cb.MsgID == "" {
		return Callback{}, malformed("MsgId is missing in a %s message", clip(cb.MsgType))
	}
	cb.Kind = KindMessage
	switch cb.MsgType {
	case "text":
		if cb.Content == "" {
			return Callback{}, malformed("Content is missing in a text message")
		}
	case "image", "file":
		if cb.MediaID == "" {
			return Callback{}, malformed("MediaId is missing in a %s message", cb.MsgType)
		}
	case "voice":
		if cb.MediaID == "" && cb.Recognition == "" {
			return Callback{}, malformed("a voice message has neither MediaId nor Recognition")
		}
	default:
		cb.Kind = ""
		return cb, fmt.Errorf("%w: msgtype %q", ErrUnsupported, clip(cb.MsgType))
	}
	return cb, nil
}

// clip keeps an echoed value short: enough to recognise, never a body.
func clip(s string) string {
	const n = 32
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}
