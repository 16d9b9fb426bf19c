package wecomtest

import (
	"encoding/json"
	"fmt"
)

// Quote is a quoted message as WeCom puts it in a callback's "quote".
type Quote struct {
	MsgType string    // text (default), voice, image, file, video or mixed
	Text    string    // text and voice
	Link    MediaLink // image, file and video
	Items   []Item    // mixed
}

// contentJSON is the msgtype-dependent part of a message: {"msgtype": t,
// t: {...}}, with the field names of WECOM-PROTOCOL.md §C and the official
// SDK's types (ImageContent, FileContent, VideoContent, MixedContent).
func contentJSON(msgType, text string, link MediaLink, items []Item) (map[string]any, error) {
	if msgType == "" {
		msgType = "text"
	}
	out := map[string]any{"msgtype": msgType}
	switch msgType {
	case "text", "voice":
		out[msgType] = map[string]string{"content": text}
	case "image", "file", "video":
		if link.URL == "" {
			return nil, fmt.Errorf("%w (msgtype %s)", ErrNoMedia, msgType)
		}
		out[msgType] = linkJSON(link.URL, link.AESKey)
	case "mixed":
		var list []map[string]any
		for _, it := range items {
			if it.ImageURL != "" {
				list = append(list, map[string]any{"msgtype": "image", "image": linkJSON(it.ImageURL, it.AESKey)})
				continue
			}
			list = append(list, map[string]any{"msgtype": "text", "text": map[string]string{"content": it.Text}})
		}
		out["mixed"] = map[string]any{"msg_item": list}
	default:
		return nil, fmt.Errorf("wecomtest: MsgType %q: want text, voice, image, file, video or mixed", msgType)
	}
	return out, nil
}

// linkJSON is {url, aeskey}; the webhook's links have no aeskey (the bot's
// EncodingAESKey encrypts them), so it is left out there.
func linkJSON(url, aeskey string) map[string]string {
	m := map[string]string{"url": url}
	if aeskey != "" {
		m["aeskey"] = aeskey
	}
	return m
}

// withContent adds the message's content and quote to an envelope.
func withContent(envelope map[string]any, msgType, text string, link MediaLink, items []Item, q *Quote) error {
	c, err := contentJSON(msgType, text, link, items)
	if err != nil {
		return err
	}
	for k, v := range c {
		envelope[k] = v
	}
	if q != nil {
		qc, err := contentJSON(q.MsgType, q.Text, q.Link, q.Items)
		if err != nil {
			return fmt.Errorf("quote: %w", err)
		}
		envelope["quote"] = qc
	}
	return nil
}

// mediaMessageJSON is messageJSON for what its typed callback does not
// carry: image, file and video messages, and quotes.
func (s *Sim) mediaMessageJSON(cb jsonCallback, m Message) ([]byte, error) {
	cb.Text, cb.Voice, cb.Mixed = nil, nil, nil
	raw, err := json.Marshal(cb)
	if err != nil {
		return nil, err
	}
	var env map[string]any
	if err := json.Unmarshal(raw, &env); err != nil {
		return nil, err
	}
	if err := withContent(env, m.MsgType, m.Text, m.Link, m.Items, m.Quote); err != nil {
		return nil, err
	}
	return json.Marshal(env)
}
