package scriptedmodel

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"
	"unicode/utf8"
)

// flusher is the part of http.ResponseWriter a stream needs to push bytes to
// Codex before it pauses.
type flusher interface {
	io.Writer
	Flush() error
}

// stream writes one scripted Response as Responses API server-sent events.
// Every event names its type both in the `event:` line and in the JSON, and
// carries a sequence_number, as the real API does.
type stream struct {
	w      flusher
	respID string
	seq    int
	sent   int // text deltas written so far, for Response.HoldAfter
	buf    []byte
	stop   <-chan struct{} // closed when the request or server ends
}

// wire shapes of the output items, as they appear in output_item.done and in
// response.completed.
type (
	wireMessage struct {
		ID      string           `json:"id"`
		Type    string           `json:"type"`
		Status  string           `json:"status"`
		Role    string           `json:"role"`
		Content []wireOutputText `json:"content"`
		Phase   string           `json:"phase,omitempty"`
	}
	wireOutputText struct {
		Type        string `json:"type"`
		Annotations []any  `json:"annotations"`
		Text        string `json:"text"`
	}
	wireReasoning struct {
		ID      string        `json:"id"`
		Type    string        `json:"type"`
		Summary []wireSummary `json:"summary"`
	}
	wireSummary struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	wireFunctionCall struct {
		ID        string `json:"id"`
		Type      string `json:"type"`
		Status    string `json:"status"`
		Arguments string `json:"arguments"`
		CallID    string `json:"call_id"`
		Name      string `json:"name"`
		Namespace string `json:"namespace,omitempty"`
	}
)

// run streams r. It returns early (with the context's error) when the request
// or the server ends while the stream waits.
func (s *stream) run(r Response) error {
	s.event("response.created", map[string]any{
		"response": s.responseObject("in_progress", []any{}, nil),
	})
	s.event("response.in_progress", map[string]any{
		"response": s.responseObject("in_progress", []any{}, nil),
	})
	output := make([]any, 0, len(r.Items))
	for i, it := range r.Items {
		id := fmt.Sprintf("%s_%s_%d", itemPrefix(it.kind), s.respID, i)
		done, err := s.item(r, i, id, it)
		if err != nil {
			return err
		}
		output = append(output, done)
	}
	if r.Fail != "" {
		s.event("response.failed", map[string]any{
			"response": map[string]any{
				"id": s.respID, "object": "response", "status": "failed",
				"error": map[string]any{"code": "server_error", "message": r.Fail},
			},
		})
	} else {
		s.event("response.completed", map[string]any{
			"response": s.responseObject("completed", output, usageJSON(r.Usage)),
		})
	}
	return s.flush()
}

func itemPrefix(k itemKind) string {
	switch k {
	case kindMessage:
		return "msg"
	case kindReasoning:
		return "rs"
	default:
		return "fc"
	}
}

func (s *stream) responseObject(status string, output []any, usage any) map[string]any {
	o := map[string]any{"id": s.respID, "object": "response", "status": status, "output": output}
	if usage != nil {
		o["usage"] = usage
	}
	return o
}

func usageJSON(u Usage) any {
	if u == (Usage{}) {
		u = Usage{InputTokens: 100, OutputTokens: 20}
	}
	return map[string]any{
		"input_tokens":          u.InputTokens,
		"input_tokens_details":  map[string]any{"cached_tokens": u.CachedInputTokens},
		"output_tokens":         u.OutputTokens,
		"output_tokens_details": map[string]any{"reasoning_tokens": u.ReasoningTokens},
		"total_tokens":          u.InputTokens + u.OutputTokens,
	}
}

// item streams one output item and returns its completed wire form.
func (s *stream) item(r Response, index int, id string, it Item) (any, error) {
	switch it.kind {
	case kindMessage:
		added := wireMessage{ID: id, Type: "message", Status: "in_progress", Role: "assistant", Content: []wireOutputText{}, Phase: it.phase}
		s.event("response.output_item.added", map[string]any{"output_index": index, "item": added})
		part := wireOutputText{Type: "output_text", Annotations: []any{}, Text: ""}
		s.event("response.content_part.added", map[string]any{"item_id": id, "output_index": index, "content_index": 0, "part": part})
		prefix := s.deltaPrefix(id, index, `,"content_index":0,"delta":`)
		if err := s.deltas(r, "response.output_text.delta", prefix, `,"logprobs":[]}`, it.deltas); err != nil {
			return nil, err
		}
		text := it.Text()
		s.event("response.output_text.done", map[string]any{"item_id": id, "output_index": index, "content_index": 0, "text": text, "logprobs": []any{}})
		part.Text = text
		s.event("response.content_part.done", map[string]any{"item_id": id, "output_index": index, "content_index": 0, "part": part})
		done := wireMessage{ID: id, Type: "message", Status: "completed", Role: "assistant", Content: []wireOutputText{part}, Phase: it.phase}
		s.event("response.output_item.done", map[string]any{"output_index": index, "item": done})
		return done, nil
	case kindReasoning:
		s.event("response.output_item.added", map[string]any{"output_index": index, "item": wireReasoning{ID: id, Type: "reasoning", Summary: []wireSummary{}}})
		part := wireSummary{Type: "summary_text", Text: ""}
		s.event("response.reasoning_summary_part.added", map[string]any{"item_id": id, "output_index": index, "summary_index": 0, "part": part})
		prefix := s.deltaPrefix(id, index, `,"summary_index":0,"delta":`)
		if err := s.deltas(r, "response.reasoning_summary_text.delta", prefix, `}`, it.deltas); err != nil {
			return nil, err
		}
		text := it.Text()
		s.event("response.reasoning_summary_text.done", map[string]any{"item_id": id, "output_index": index, "summary_index": 0, "text": text})
		part.Text = text
		s.event("response.reasoning_summary_part.done", map[string]any{"item_id": id, "output_index": index, "summary_index": 0, "part": part})
		done := wireReasoning{ID: id, Type: "reasoning", Summary: []wireSummary{part}}
		s.event("response.output_item.done", map[string]any{"output_index": index, "item": done})
		return done, nil
	default:
		added := wireFunctionCall{ID: id, Type: "function_call", Status: "in_progress", CallID: it.callID, Name: it.name, Namespace: it.ns}
		s.event("response.output_item.added", map[string]any{"output_index": index, "item": added})
		s.event("response.function_call_arguments.delta", map[string]any{"item_id": id, "output_index": index, "delta": it.args})
		s.event("response.function_call_arguments.done", map[string]any{"item_id": id, "output_index": index, "arguments": it.args})
		done := added
		done.Status, done.Arguments = "completed", it.args
		s.event("response.output_item.done", map[string]any{"output_index": index, "item": done})
		return done, nil
	}
}

// deltaPrefix is the constant middle of a delta event's JSON, between its
// sequence number and its delta text; deltas are the hot path
// of a long answer, so they are assembled by appending rather than marshalled.
func (s *stream) deltaPrefix(itemID string, index int, tail string) string {
	return `,"item_id":` + quote(itemID) + `,"output_index":` + strconv.Itoa(index) + tail
}

// deltas writes one delta event per text piece, honouring the response's
// delay and hold.
func (s *stream) deltas(r Response, typ, fields, suffix string, pieces []string) error {
	for _, d := range pieces {
		if r.Hold != nil && s.sent == r.HoldAfter {
			if err := s.hold(r.Hold); err != nil {
				return err
			}
		}
		if r.DeltaDelay > 0 {
			if err := s.sleep(r.DeltaDelay); err != nil {
				return err
			}
		}
		b := s.buf[:0]
		b = append(b, "event: "...)
		b = append(b, typ...)
		b = append(b, "\ndata: {\"type\":\""...)
		b = append(b, typ...)
		b = append(b, `","sequence_number":`...)
		b = strconv.AppendInt(b, int64(s.seq), 10)
		b = append(b, fields...)
		b = appendQuoted(b, d)
		b = append(b, suffix...)
		b = append(b, "\n\n"...)
		s.seq++
		s.sent++
		s.buf = b
		if _, err := s.w.Write(b); err != nil {
			return fmt.Errorf("write delta: %w", err)
		}
	}
	if r.Hold != nil && s.sent == r.HoldAfter {
		return s.hold(r.Hold)
	}
	return nil
}

func (s *stream) hold(g *Gate) error {
	if err := s.flush(); err != nil {
		return err
	}
	g.arrive()
	select {
	case <-g.released:
		return nil
	case <-s.stop:
		return fmt.Errorf("stream held at gate: %w", context.Canceled)
	}
}

func (s *stream) sleep(d time.Duration) error {
	if err := s.flush(); err != nil {
		return err
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-s.stop:
		return fmt.Errorf("stream delay: %w", context.Canceled)
	}
}

func (s *stream) flush() error {
	if err := s.w.Flush(); err != nil {
		return fmt.Errorf("flush stream: %w", err)
	}
	return nil
}

// event writes one event whose JSON is fields plus type and sequence_number.
func (s *stream) event(typ string, fields map[string]any) {
	fields["type"] = typ
	fields["sequence_number"] = s.seq
	s.seq++
	data, err := json.Marshal(fields)
	if err != nil {
		// Only our own plain structs and maps are marshalled here.
		panic("scriptedmodel: marshal event: " + err.Error())
	}
	b := s.buf[:0]
	b = append(b, "event: "...)
	b = append(b, typ...)
	b = append(b, "\ndata: "...)
	b = append(b, data...)
	b = append(b, "\n\n"...)
	s.buf = b
	// A write error means Codex went away; the next flush reports it.
	_, _ = s.w.Write(b)
}

func quote(s string) string { return string(appendQuoted(nil, s)) }

// appendQuoted appends s as a JSON string without allocating: deltas are the
// hot path of a 20,000-delta answer. Invalid UTF-8 becomes U+FFFD, as
// encoding/json does.
func appendQuoted(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			// Valid JSON either way; escaped so the line stays safe for
			// JavaScript consumers, like encoding/json does.
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}
