// Package wecomtest plays WeCom's side for tests and the playground.
//
// LongConnServer is the AI bot's long-connection (WebSocket) server of
// WECOM-PROTOCOL.md §H: it acks every request by req_id, pushes callbacks,
// and enforces the rules the real server enforces, so a client that breaks
// one fails here the way it would fail against WeCom.
package wecomtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// LongConnOptions are the server's knobs; zero values are WeCom's.
type LongConnOptions struct {
	BotID  string // the bot_id a subscribe must carry
	Secret string // the secret a subscribe must carry
	// StreamTTL is how long after its callback a message's req_id accepts
	// stream frames before they fail with 846608. Default 6 minutes.
	StreamTTL time.Duration
	// KickCloseDelay is how long the server keeps a kicked connection open
	// after pushing disconnected_event to it (real: 2 s – 5 min). Default 2 s.
	KickCloseDelay time.Duration
	// ReplyWindow is how long after an event a welcome or a card update is
	// accepted. Default 5 s.
	ReplyWindow time.Duration
}

// Error codes the fake answers with. The first four are WeCom's, documented in
// WECOM-PROTOCOL.md §A.13; CodeInvalidParam stands for the unrecorded code a
// real server gives a malformed request (a rule the docs state without one).
const (
	CodeBadCredentials = 853000
	CodeInvalidReqID   = 846605
	CodeStreamExpired  = 846608
	CodeInvalidMsgType = 40008
	CodeInvalidChatID  = 93006
	CodeInvalidParam   = 40058
	// CodeSystemError is WeCom's "system error" (-1), what a busy server
	// answers, for example to an upload.
	CodeSystemError = -1
)

// AckPolicy says how the server answers a client request of one cmd.
type AckPolicy int

const (
	AckNow  AckPolicy = iota // ack at once (the default)
	AckHold                  // keep the ack until Release is called for the cmd
	AckDrop                  // never ack (a dead server, for heartbeat tests)
)

// LongConnServer is a fake WeCom long-connection server on loopback.
type LongConnServer struct {
	opts LongConnOptions
	http *httptest.Server

	mu       sync.Mutex
	conns    []*fakeConn
	nextConn int
	seq      int // of records
	ids      int // of made-up ids
	policy   map[string]AckPolicy
	held     map[string][]heldAck
	callback map[string]*callbackState // by req_id
	talked   map[string]bool           // chatids that may get aibot_send_msg
	uploads  map[string]*upload        // by upload_id, until finished
	media    map[string]Upload         // by media_id
	log      []Record
	changed  chan struct{} // closed and replaced whenever log changes
	maxSubs  int
	refuse   int            // upgrades still to refuse
	failCmd  map[string]int // cmd → the errcode every request of it gets
	closed   bool
}

type heldAck struct {
	c   *fakeConn
	ack map[string]any
}

// NewLongConnServer starts the server; it stops when the test ends.
func NewLongConnServer(tb interface{ Cleanup(func()) }, o LongConnOptions) *LongConnServer {
	if o.StreamTTL == 0 {
		o.StreamTTL = 6 * time.Minute
	}
	if o.KickCloseDelay == 0 {
		o.KickCloseDelay = 2 * time.Second
	}
	if o.ReplyWindow == 0 {
		o.ReplyWindow = 5 * time.Second
	}
	s := &LongConnServer{opts: o, policy: map[string]AckPolicy{}, held: map[string][]heldAck{},
		callback: map[string]*callbackState{}, talked: map[string]bool{},
		uploads: map[string]*upload{}, media: map[string]Upload{}, changed: make(chan struct{})}
	s.http = httptest.NewServer(http.HandlerFunc(s.serveWS))
	tb.Cleanup(s.Close)
	return s
}

// URL is the ws:// address to dial (wecom.aibot.ws_url).
func (s *LongConnServer) URL() string { return "ws" + strings.TrimPrefix(s.http.URL, "http") }

// Close drops every connection and stops the server.
func (s *LongConnServer) Close() {
	s.mu.Lock()
	s.closed = true
	conns := append([]*fakeConn(nil), s.conns...)
	s.mu.Unlock()
	for _, c := range conns {
		c.ws.CloseNow()
	}
	s.http.CloseClientConnections()
	s.http.Close()
}

// SetAckPolicy sets how requests with cmd are answered from now on.
func (s *LongConnServer) SetAckPolicy(cmd string, p AckPolicy) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.policy[cmd] = p
}

// Release sends the acks held for cmd, oldest first, and returns how many.
func (s *LongConnServer) Release(cmd string) int {
	s.mu.Lock()
	acks := s.held[cmd]
	delete(s.held, cmd)
	s.mu.Unlock()
	for _, h := range acks {
		s.sendAck(h.c, h.ack)
	}
	return len(acks)
}

// Held is how many acks for cmd wait for Release.
func (s *LongConnServer) Held(cmd string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.held[cmd])
}

// MaxSubscribed is the most connections that were subscribed at one moment.
func (s *LongConnServer) MaxSubscribed() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.maxSubs
}

// Subscribed is the id of the connection subscribed now, or 0.
func (s *LongConnServer) Subscribed() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.subscribedLocked(); c != nil {
		return c.id
	}
	return 0
}

// DropSubscribed closes the subscribed connection abruptly, as a network
// failure would, and returns its id (0 when none).
func (s *LongConnServer) DropSubscribed() int {
	s.mu.Lock()
	c := s.subscribedLocked()
	s.mu.Unlock()
	if c == nil {
		return 0
	}
	c.ws.CloseNow()
	return c.id
}

func (s *LongConnServer) subscribedLocked() *fakeConn {
	for _, c := range s.conns {
		if c.subscribed && !c.kicked {
			return c
		}
	}
	return nil
}

// fakeConn is one client connection.
type fakeConn struct {
	id         int
	ws         *websocket.Conn
	writeMu    sync.Mutex
	subscribed bool
	kicked     bool
}

// Refuse makes the next n connection attempts fail with 503, as an
// unreachable or overloaded WeCom would.
func (s *LongConnServer) Refuse(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refuse = n
}

// FailCmd makes every later request of cmd that WeCom's rules accept
// answered with code instead, as a server in trouble would.
func (s *LongConnServer) FailCmd(cmd string, code int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failCmd == nil {
		s.failCmd = map[string]int{}
	}
	s.failCmd[cmd] = code
}

func (s *LongConnServer) serveWS(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	refuse := s.refuse > 0
	if refuse {
		s.refuse--
		s.recordLocked(Record{Kind: KindRefused})
	}
	s.mu.Unlock()
	if refuse {
		http.Error(w, "service unavailable", http.StatusServiceUnavailable)
		return
	}
	ws, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	ws.SetReadLimit(1 << 22)
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		ws.CloseNow()
		return
	}
	s.nextConn++
	c := &fakeConn{id: s.nextConn, ws: ws}
	s.conns = append(s.conns, c)
	s.recordLocked(Record{Conn: c.id, Kind: KindOpen})
	s.mu.Unlock()
	defer s.drop(c)
	ctx := r.Context()
	for {
		_, data, err := ws.Read(ctx)
		if err != nil {
			return
		}
		s.handle(c, data)
	}
}

func (s *LongConnServer) drop(c *fakeConn) {
	c.ws.CloseNow()
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, x := range s.conns {
		if x == c {
			s.conns = append(s.conns[:i], s.conns[i+1:]...)
			break
		}
	}
	s.recordLocked(Record{Conn: c.id, Kind: KindClose})
}

// send writes one frame to c; a failed write is the client's loss, as on the
// real server.
func (s *LongConnServer) send(c *fakeConn, frame any) {
	data, err := json.Marshal(frame)
	if err != nil {
		panic(fmt.Sprintf("wecomtest: marshal frame: %v", err))
	}
	s.sendRaw(c, data)
}

func (s *LongConnServer) sendRaw(c *fakeConn, data []byte) {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = c.ws.Write(ctx, websocket.MessageText, data)
}
