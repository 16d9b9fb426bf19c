package wecomtest

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// RecordKind says what a Record saw.
type RecordKind string

const (
	KindOpen    RecordKind = "open"    // a connection was accepted
	KindClose   RecordKind = "close"   // a connection ended
	KindRequest RecordKind = "request" // the client sent a request (Errcode: what it will be answered)
	KindAck     RecordKind = "ack"     // the server sent the ack of a request
	KindPush    RecordKind = "push"    // the server pushed a callback
	KindBad     RecordKind = "bad"     // the client sent a frame that is not a request
	KindRefused RecordKind = "refused" // a connection attempt was refused (Refuse)
)

// Record is one thing the server saw or did, in the order it happened.
type Record struct {
	Seq     int
	At      time.Time
	Conn    int
	Kind    RecordKind
	Cmd     string
	ReqID   string
	Body    json.RawMessage
	Errcode int
	Errmsg  string
}

// Stream decodes a stream reply's body.stream (zero when it is not one).
func (r Record) Stream() (s struct {
	ID      string `json:"id"`
	Finish  bool   `json:"finish"`
	Content string `json:"content"`
}) {
	var b struct {
		Stream *struct {
			ID      string `json:"id"`
			Finish  bool   `json:"finish"`
			Content string `json:"content"`
		} `json:"stream"`
	}
	if json.Unmarshal(r.Body, &b) == nil && b.Stream != nil {
		s.ID, s.Finish, s.Content = b.Stream.ID, b.Stream.Finish, b.Stream.Content
	}
	return s
}

// MsgType is body.msgtype of a request ("" when absent).
func (r Record) MsgType() string {
	var b struct {
		MsgType string `json:"msgtype"`
	}
	_ = json.Unmarshal(r.Body, &b)
	return b.MsgType
}

// Markdown is body.markdown.content of an aibot_send_msg ("" when absent).
func (r Record) Markdown() string {
	var b struct {
		Markdown struct {
			Content string `json:"content"`
		} `json:"markdown"`
	}
	_ = json.Unmarshal(r.Body, &b)
	return b.Markdown.Content
}

func (s *LongConnServer) recordLocked(r Record) Record {
	s.seq++
	r.Seq, r.At = s.seq, time.Now()
	s.log = append(s.log, r)
	close(s.changed)
	s.changed = make(chan struct{})
	return r
}

// Records is everything seen so far, in order.
func (s *LongConnServer) Records() []Record {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Record(nil), s.log...)
}

// Requests is every request with cmd (all when cmd is ""), in order.
func (s *LongConnServer) Requests(cmd string) []Record {
	var out []Record
	for _, r := range s.Records() {
		if r.Kind == KindRequest && (cmd == "" || r.Cmd == cmd) {
			out = append(out, r)
		}
	}
	return out
}

// Wait returns the first record, from the start, for which match holds,
// waiting for it until ctx ends.
func (s *LongConnServer) Wait(ctx context.Context, match func(Record) bool) (Record, error) {
	return s.WaitFrom(ctx, 0, match)
}

// WaitFrom is Wait over the records after the first from (a Record's Seq
// is its position, so pass the Seq of the last record already looked at).
func (s *LongConnServer) WaitFrom(ctx context.Context, from int, match func(Record) bool) (Record, error) {
	seen := from
	for {
		s.mu.Lock()
		log, changed := s.log[seen:], s.changed
		seen = len(s.log)
		s.mu.Unlock()
		for _, r := range log {
			if match(r) {
				return r, nil
			}
		}
		select {
		case <-ctx.Done():
			return Record{}, fmt.Errorf("wait for a long-connection record: %w", ctx.Err())
		case <-changed:
		}
	}
}

// WaitCount waits until match holds for n records and returns them.
func (s *LongConnServer) WaitCount(ctx context.Context, n int, match func(Record) bool) ([]Record, error) {
	var got []Record
	_, err := s.Wait(ctx, func(r Record) bool {
		if match(r) {
			got = append(got, r)
		}
		return len(got) >= n
	})
	return got, err
}

// IsRequest matches a request with cmd.
func IsRequest(cmd string) func(Record) bool {
	return func(r Record) bool { return r.Kind == KindRequest && r.Cmd == cmd }
}

// IsFinalStream matches the stream reply that finishes stream id.
func IsFinalStream(reqID string) func(Record) bool {
	return func(r Record) bool {
		return r.Kind == KindRequest && r.Cmd == "aibot_respond_msg" && r.ReqID == reqID && r.Stream().Finish
	}
}

// FinalFrames is every stream reply that finishes reqID's stream, in order.
func (s *LongConnServer) FinalFrames(reqID string) []Record {
	var out []Record
	for _, r := range s.Records() {
		if IsFinalStream(reqID)(r) {
			out = append(out, r)
		}
	}
	return out
}

// Overlapping is every request on reqID that a connection sent while an
// earlier one on the same req_id still awaited its ack: a client that
// serialises its frames per req_id, as the SDK does (§A.7), has none.
func (s *LongConnServer) Overlapping(reqID string) []Record {
	var out []Record
	waiting := map[int]int{} // by connection
	for _, r := range s.Records() {
		if r.Kind == KindClose {
			waiting[r.Conn] = 0
		}
		if r.ReqID != reqID {
			continue
		}
		switch r.Kind {
		case KindRequest:
			if waiting[r.Conn] > 0 {
				out = append(out, r)
			}
			waiting[r.Conn]++
		case KindAck:
			waiting[r.Conn]--
		}
	}
	return out
}
