package longconn

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/wecodex/wecodex/bot/wecom"
)

// maxFrameBytes caps an inbound frame; callbacks are small JSON documents.
const maxFrameBytes = 1 << 20

// session is one WebSocket connection: it writes requests, pairs acks with
// them by req_id, and hands callbacks to onPush in arrival order.
type session struct {
	ws         *websocket.Conn
	ackTimeout time.Duration
	onPush     func(Frame)

	writeMu sync.Mutex
	mu      sync.Mutex
	pending map[string]chan Frame
	done    chan struct{} // closed when the read loop ends
	err     error         // why it ended, set before done closes
}

func dialSession(ctx context.Context, url string, ackTimeout time.Duration, onPush func(Frame)) (*session, error) {
	ws, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", url, err)
	}
	ws.SetReadLimit(maxFrameBytes)
	s := &session{ws: ws, ackTimeout: ackTimeout, onPush: onPush, pending: map[string]chan Frame{}, done: make(chan struct{})}
	go s.readLoop()
	return s, nil
}

func (s *session) readLoop() {
	var err error
	for {
		var data []byte
		_, data, err = s.ws.Read(context.Background())
		if err != nil {
			break
		}
		f, derr := decodeFrame(data)
		if derr != nil {
			continue // the SDK logs and drops such a frame too
		}
		if f.Cmd != "" {
			s.onPush(f)
			continue
		}
		s.mu.Lock()
		ch := s.pending[f.Headers.ReqID]
		delete(s.pending, f.Headers.ReqID)
		s.mu.Unlock()
		if ch != nil {
			ch <- f
		}
	}
	s.mu.Lock()
	s.err = fmt.Errorf("read long connection: %w", err)
	s.mu.Unlock()
	close(s.done)
}

// request writes cmd with reqID and waits for its ack. An ack with a
// non-zero errcode is a *wecom.APIError; no ack in time is ErrAckTimeout.
func (s *session) request(ctx context.Context, cmd, reqID string, body any) (Frame, error) {
	ch := make(chan Frame, 1)
	s.mu.Lock()
	s.pending[reqID] = ch
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.pending, reqID)
		s.mu.Unlock()
	}()
	if err := s.write(ctx, cmd, reqID, body); err != nil {
		return Frame{}, err
	}
	timer := time.NewTimer(s.ackTimeout)
	defer timer.Stop()
	select {
	case f := <-ch:
		if f.Errcode != 0 {
			return f, &wecom.APIError{Op: cmd, Code: f.Errcode, Msg: f.Errmsg}
		}
		return f, nil
	case <-timer.C:
		return Frame{}, fmt.Errorf("%s: %w", cmd, ErrAckTimeout)
	case <-s.done:
		return Frame{}, fmt.Errorf("%s: %w", cmd, ErrConnLost)
	case <-ctx.Done():
		return Frame{}, fmt.Errorf("%s: %w", cmd, ctx.Err())
	}
}

func (s *session) write(ctx context.Context, cmd, reqID string, body any) error {
	f := struct {
		Cmd     string  `json:"cmd"`
		Headers Headers `json:"headers"`
		Body    any     `json:"body,omitempty"`
	}{cmd, Headers{ReqID: reqID}, body}
	data, err := json.Marshal(f)
	if err != nil {
		return fmt.Errorf("encode %s: %w", cmd, err)
	}
	wctx, cancel := context.WithTimeout(ctx, s.ackTimeout)
	defer cancel()
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	if err := s.ws.Write(wctx, websocket.MessageText, data); err != nil {
		// A frame cut short is not a frame WeCom can parse.
		return fmt.Errorf("write %s: %w: %w", cmd, ErrNotSent, err)
	}
	return nil
}

// close ends the connection at once; the read loop then ends.
func (s *session) close() {
	_ = s.ws.CloseNow()
	<-s.done
}
