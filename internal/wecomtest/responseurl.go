package wecomtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// ResponseURLValidity is how long a response_url accepts its one POST.
const ResponseURLValidity = time.Hour

// Error codes the ResponseURLServer answers. 40008 is WeCom's "invalid message
// type"; WeCom's code for a used or expired response_url is not documented,
// so ErrCodeResponseURLUsed is this simulator's own.
const (
	ErrCodeInvalidMsgType  = 40008
	ErrCodeResponseURLUsed = 600001
)

// Post is one message a bot POSTed to a response_url.
type Post struct {
	MsgID    string // the message whose response_url it was
	Message  ResponseURLMessage
	Raw      []byte
	Accepted bool // false when answered with a non-zero errcode
	At       time.Time
}

// ResponseURLServer plays WeCom's response_url endpoint on 127.0.0.1: one URL
// per message, each accepting one markdown or template_card POST within
// ResponseURLValidity, answered {"errcode":0,"errmsg":"ok"}.
type ResponseURLServer struct {
	srv    *http.Server
	base   string
	onPost func(Post)
	now    func() time.Time
	done   chan struct{}

	mu      sync.Mutex
	codes   map[string]*responseCode // response_code → its message
	byMsg   map[string]string        // msgid → response_code
	posts   map[string][]Post        // msgid → posts, in arrival order
	changed chan struct{}            // closed and replaced on every post
}

type responseCode struct {
	msgID  string
	issued time.Time
	used   bool
}

// NewResponseURLServer starts the server on a free loopback port. onPost, if
// not nil, is called (on the request's goroutine) for every POST; the
// playground uses it to show late answers live. Close stops the server.
func NewResponseURLServer(onPost func(Post)) (*ResponseURLServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("wecomtest: response_url listener: %w", err)
	}
	r := &ResponseURLServer{
		base:    "http://" + ln.Addr().String(),
		onPost:  onPost,
		now:     time.Now,
		done:    make(chan struct{}),
		codes:   map[string]*responseCode{},
		byMsg:   map[string]string{},
		posts:   map[string][]Post{},
		changed: make(chan struct{}),
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /cgi-bin/aibot/response", r.handle)
	r.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		defer close(r.done)
		_ = r.srv.Serve(ln) // returns http.ErrServerClosed after Close
	}()
	return r, nil
}

// URL returns the response_url for a message; the same message gets the same
// URL, as a redelivered callback carries the same response_url.
func (r *ResponseURLServer) URL(msgID string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	code, ok := r.byMsg[msgID]
	if !ok {
		code = randomHex(16)
		r.byMsg[msgID] = code
		r.codes[code] = &responseCode{msgID: msgID, issued: r.now()}
	}
	return r.base + "/cgi-bin/aibot/response?response_code=" + code
}

// Posts returns what was POSTed to a message's response_url so far.
func (r *ResponseURLServer) Posts(msgID string) []Post {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Post(nil), r.posts[msgID]...)
}

// Wait blocks until a message's response_url has received n POSTs and returns
// them.
func (r *ResponseURLServer) Wait(ctx context.Context, msgID string, n int) ([]Post, error) {
	for {
		r.mu.Lock()
		ps, ch := r.posts[msgID], r.changed
		r.mu.Unlock()
		if len(ps) >= n {
			return append([]Post(nil), ps...), nil
		}
		select {
		case <-ctx.Done():
			return append([]Post(nil), ps...), fmt.Errorf("wait for %d response_url posts to %s (have %d): %w", n, msgID, len(ps), ctx.Err())
		case <-ch:
		}
	}
}

// Close stops the server and waits for it to finish.
func (r *ResponseURLServer) Close() error {
	err := r.srv.Close()
	<-r.done
	return err
}

func (r *ResponseURLServer) handle(w http.ResponseWriter, req *http.Request) {
	raw, err := io.ReadAll(io.LimitReader(req.Body, 1<<20))
	if err != nil {
		http.Error(w, "read body", http.StatusBadRequest)
		return
	}
	code := req.URL.Query().Get("response_code")
	r.mu.Lock()
	rc := r.codes[code]
	r.mu.Unlock()
	if rc == nil {
		writeResult(w, ErrCodeResponseURLUsed, "invalid response_code")
		return
	}
	p := Post{MsgID: rc.msgID, Raw: raw, At: r.now()}
	errCode, errMsg := 0, "ok"
	if err := json.Unmarshal(raw, &p.Message); err != nil {
		errCode, errMsg = ErrCodeInvalidMsgType, "body is not JSON"
	} else if err := checkMessage(p.Message); err != nil {
		errCode, errMsg = ErrCodeInvalidMsgType, err.Error()
	}
	r.mu.Lock()
	switch {
	case errCode != 0:
	case rc.used:
		errCode, errMsg = ErrCodeResponseURLUsed, "response_url already used"
	case p.At.Sub(rc.issued) > ResponseURLValidity:
		errCode, errMsg = ErrCodeResponseURLUsed, "response_url expired"
	default:
		rc.used = true
	}
	p.Accepted = errCode == 0
	r.posts[rc.msgID] = append(r.posts[rc.msgID], p)
	close(r.changed)
	r.changed = make(chan struct{})
	r.mu.Unlock()
	if r.onPost != nil {
		r.onPost(p)
	}
	writeResult(w, errCode, errMsg)
}

func checkMessage(m ResponseURLMessage) error {
	switch m.MsgType {
	case "markdown":
		if m.Markdown == nil {
			return errors.New("markdown message without markdown")
		}
	case "template_card":
		if len(m.TemplateCard) == 0 {
			return errors.New("template_card message without template_card")
		}
	default:
		return fmt.Errorf("msgtype %q is not markdown or template_card", m.MsgType)
	}
	return nil
}

func writeResult(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(apiResult{ErrCode: code, ErrMsg: msg})
}
