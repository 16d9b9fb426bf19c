package serve

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	acp "github.com/coder/acp-go-sdk"
)

// Encoding session/update notifications without acp-go-sdk's connection.
//
// The SDK marshals every update three times (struct, map, map again) and
// writes each notification with its own write call; for a turn that streams
// tens of thousands of text deltas that was most of the bridge's CPU. The
// served session's outbox (serve_outbox.go) encodes its notifications here,
// byte for byte as the SDK would, and writes a batch in one call.

// textChunk reports whether u is an agent message or thought chunk that
// carries plain text and nothing else the wire would show (no _meta), and
// returns its kind, message id and text. Only such chunks are merged and
// encoded by hand; the checks follow the order in which the SDK's
// SessionUpdate.MarshalJSON picks the variant it sends.
func textChunk(u acp.SessionUpdate) (kind string, id *string, text string, ok bool) {
	if u.UserMessageChunk != nil {
		return "", nil, "", false
	}
	if c := u.AgentMessageChunk; c != nil {
		if len(c.Meta) > 0 || c.Content.Text == nil {
			return "", nil, "", false
		}
		return "agent_message_chunk", c.MessageId, c.Content.Text.Text, true
	}
	if c := u.AgentThoughtChunk; c != nil {
		if len(c.Meta) > 0 || c.Content.Text == nil {
			return "", nil, "", false
		}
		return "agent_thought_chunk", c.MessageId, c.Content.Text.Text, true
	}
	return "", nil, "", false
}

// sameMessage reports whether two message ids name the same message (both
// absent counts as the same).
func sameMessage(a, b *string) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// appendTextNotification appends one session/update notification line whose
// update is a text chunk of kind and message id, its text being texts
// concatenated, exactly as acp-go-sdk would encode the merged chunk.
// (The SDK encodes the update through a map, so its keys come out sorted.)
func appendTextNotification(buf []byte, session acp.SessionId, kind string, id *string, texts []string) []byte {
	buf = append(buf, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":`...)
	buf = appendJSONString(buf, string(session))
	buf = append(buf, `,"update":{"content":{"text":"`...)
	if allValidUTF8(texts) {
		for _, t := range texts {
			buf = appendJSONStringBody(buf, t, true)
		}
	} else {
		// An invalid piece could be half of a character the next piece
		// completes: escape the text as the client will read it, joined.
		buf = appendJSONStringBody(buf, strings.Join(texts, ""), true)
	}
	buf = append(buf, `","type":"text"}`...)
	if id != nil {
		buf = append(buf, `,"messageId":"`...)
		buf = appendJSONStringBody(buf, *id, true)
		buf = append(buf, '"')
	}
	buf = append(buf, `,"sessionUpdate":"`...)
	buf = append(buf, kind...)
	buf = append(buf, "\"}}}\n"...)
	return buf
}

// appendNotification appends any update as a session/update notification
// line, encoded by the SDK's own types.
func appendNotification(buf []byte, session acp.SessionId, u acp.SessionUpdate) ([]byte, error) {
	params, err := json.Marshal(acp.SessionNotification{SessionId: session, Update: u})
	if err != nil {
		return buf, fmt.Errorf("encode session update: %w", err)
	}
	buf = append(buf, `{"jsonrpc":"2.0","method":"session/update","params":`...)
	buf = append(buf, params...)
	buf = append(buf, "}\n"...)
	return buf, nil
}

func allValidUTF8(texts []string) bool {
	for _, t := range texts {
		if !utf8.ValidString(t) {
			return false
		}
	}
	return true
}

// appendJSONString appends s as a JSON string, exactly as encoding/json
// writes it (HTML-safe escaping included).
func appendJSONString(buf []byte, s string) []byte {
	buf = append(buf, '"')
	buf = appendJSONStringBody(buf, s, false)
	return append(buf, '"')
}

const hexDigits = "0123456789abcdef"

// appendJSONStringBody appends s escaped for the inside of a JSON string,
// with encoding/json's rules: ", \ and control characters escaped (\b \f \n
// \r \t by name), <, > and & as \u003c \u003e \u0026, U+2028 and U+2029
// escaped, and each byte of invalid UTF-8 replaced by \ufffd. With
// roundTripped the replacement is written as the character itself, as
// encoding/json writes a string it encoded, decoded and encoded again (the
// SDK does that to every update's fields).
func appendJSONStringBody(buf []byte, s string, roundTripped bool) []byte {
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			buf = append(buf, s[start:i]...)
			switch c {
			case '"', '\\':
				buf = append(buf, '\\', c)
			case '\b':
				buf = append(buf, '\\', 'b')
			case '\f':
				buf = append(buf, '\\', 'f')
			case '\n':
				buf = append(buf, '\\', 'n')
			case '\r':
				buf = append(buf, '\\', 'r')
			case '\t':
				buf = append(buf, '\\', 't')
			default:
				buf = append(buf, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			buf = append(buf, s[start:i]...)
			if roundTripped {
				buf = append(buf, "\uFFFD"...)
			} else {
				buf = append(buf, `\ufffd`...)
			}
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			buf = append(buf, s[start:i]...)
			buf = append(buf, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	return append(buf, s[start:]...)
}
