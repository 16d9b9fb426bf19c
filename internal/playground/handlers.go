package playground

import (
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"strings"
	"time"
)

//go:embed static
var staticEmbed embed.FS

// staticFS holds static/index.html, app.js and app.css.
var staticFS fs.FS = staticEmbed

// heartbeatEvery keeps an idle event stream from being closed by proxies.
const heartbeatEvery = 15 * time.Second

func (p *Playground) serveIndex(w http.ResponseWriter, r *http.Request) {
	page, err := fs.ReadFile(staticFS, "static/index.html")
	if err != nil {
		http.Error(w, "page missing from the build", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	// The page renders only what the server sent, escaped or built with
	// goldmark without raw HTML; no inline script or foreign origin is needed.
	w.Header().Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'")
	_, _ = w.Write(page)
}

type sendRequest struct {
	Text string `json:"text"`
}

type sendResponse struct {
	ID    string `json:"id,omitempty"`
	Error string `json:"error,omitempty"`
}

// serveSend takes a message from the composer. It must be a JSON POST (a
// form cannot send one without a preflight); Handler has already refused a
// cross-origin one.
func (p *Playground) serveSend(w http.ResponseWriter, r *http.Request) {
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		writeSend(w, http.StatusUnsupportedMediaType, sendResponse{Error: "send JSON: {\"text\": \"…\"}"})
		return
	}
	var req sendRequest
	if err := json.NewDecoder(io.LimitReader(r.Body, 2*maxPromptBytes)).Decode(&req); err != nil {
		writeSend(w, http.StatusBadRequest, sendResponse{Error: "bad JSON body: " + err.Error()})
		return
	}
	id, err := p.Send(req.Text)
	if err != nil {
		writeSend(w, http.StatusBadRequest, sendResponse{Error: err.Error()})
		return
	}
	writeSend(w, http.StatusAccepted, sendResponse{ID: id})
}

func writeSend(w http.ResponseWriter, status int, body sendResponse) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

type hello struct {
	User     string `json:"user"`
	Endpoint string `json:"endpoint"`
}

// serveEvents streams card changes as server-sent events: a "hello" with who
// the page speaks as, every card so far, then each change as it happens.
func (p *Playground) serveEvents(w http.ResponseWriter, r *http.Request) {
	rc := http.NewResponseController(w)
	// The stream outlives the server's read and write timeouts, which are
	// meant for ordinary requests: past the write deadline the server would
	// cut it mid-stream. Not supported only by test recorders.
	_ = rc.SetReadDeadline(time.Time{})
	_ = rc.SetWriteDeadline(time.Time{})
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Accel-Buffering", "no")
	if err := writeEvent(w, "hello", hello{User: p.cfg.User, Endpoint: p.cfg.Endpoint}); err != nil {
		return
	}
	heartbeat := time.NewTicker(heartbeatEvery)
	defer heartbeat.Stop()
	var seen int64
	for {
		views, seq, changed := p.board.since(seen)
		for _, v := range views {
			if err := writeEvent(w, "card", v); err != nil {
				return
			}
		}
		seen = seq
		if err := rc.Flush(); err != nil {
			return
		}
		select {
		case <-r.Context().Done():
			return
		case <-p.ctx.Done():
			return
		case <-heartbeat.C:
			if _, err := io.WriteString(w, ": keep-alive\n\n"); err != nil {
				return
			}
		case <-changed:
		}
	}
}

func writeEvent(w io.Writer, name string, v any) error {
	data, err := json.Marshal(v) // one line: JSON escapes newlines
	if err != nil {
		return fmt.Errorf("encode %s event: %w", name, err)
	}
	_, err = fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, data)
	return err
}

// loopbackHost reports whether a request's Host names this machine's
// loopback: localhost, 127.0.0.1 or [::1], with any port or none.
func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	} else {
		host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	}
	return strings.EqualFold(host, "localhost") || host == "127.0.0.1" || host == "::1"
}

func fromLoopback(r *http.Request) bool {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
