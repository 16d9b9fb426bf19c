package scriptedmodel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/klauspost/compress/zstd"
)

// maxBodyBytes caps a request body; Codex's requests carry the instructions,
// the tools and the whole history, a few hundred KB at most in tests.
const maxBodyBytes = 64 << 20

// Server serves the scripted Responses API. Make it with [New], then [Server.Start]
// it (or mount it as an http.Handler), and [Server.Close] it when done.
type Server struct {
	script Script

	mu       sync.Mutex
	requests []Request
	nextResp int
	// inFlight counts the model requests being answered (from arrival to
	// the stream's end); maxInFlight is the most there were at once.
	inFlight, maxInFlight int

	closeCtx context.Context // cancelled by Close: releases held streams
	cancel   context.CancelFunc
	handlers sync.WaitGroup

	srv *http.Server
	url string

	images []GeneratedImage // answers of POST /v1/images/generations, in order
}

// New returns a server answering from script. It does not listen yet.
func New(script Script) *Server {
	ctx, cancel := context.WithCancel(context.Background())
	return &Server{script: script, closeCtx: ctx, cancel: cancel}
}

// Start listens on a free 127.0.0.1 port and serves in the background. It
// returns the base URL to configure as the model provider's base_url (it ends
// in /v1).
func (s *Server) Start() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("listen for scripted model server: %w", err)
	}
	s.srv = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	s.url = "http://" + ln.Addr().String() + "/v1"
	go func() {
		// Serve returns ErrServerClosed once Close runs; that is its owner.
		_ = s.srv.Serve(ln)
	}()
	return s.url, nil
}

// URL is the base URL returned by Start ("" before Start).
func (s *Server) URL() string { return s.url }

// Close stops the server: held and delayed streams end at once, open
// connections are closed, and Close waits for every handler to return.
func (s *Server) Close() error {
	s.cancel()
	var err error
	if s.srv != nil {
		err = s.srv.Close()
	}
	s.handlers.Wait()
	if err != nil {
		return fmt.Errorf("close scripted model server: %w", err)
	}
	return nil
}

// Requests returns a copy of every request recorded so far, in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// ModelRequests returns the recorded `POST /v1/responses` requests only.
func (s *Server) ModelRequests() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Method == http.MethodPost && r.Path == "/v1/responses" {
			out = append(out, r)
		}
	}
	return out
}

// Err reports every request that was not answered with a scripted stream (an
// unscripted model request, an unexpected endpoint, a bad body), or nil.
func (s *Server) Err() error {
	var errs []error
	for _, r := range s.Requests() {
		if r.Err != "" {
			errs = append(errs, fmt.Errorf("request %d %s %s: %s", r.Seq, r.Method, r.Path, r.Err))
		}
	}
	return errors.Join(errs...)
}

// ServeHTTP answers one request from Codex.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.handlers.Add(1)
	defer s.handlers.Done()

	rec := Request{Method: r.Method, Path: r.URL.Path}
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/v1/responses":
		s.serveResponses(w, r, &rec)
	case r.Method == http.MethodPost && r.URL.Path == "/v1/images/generations":
		s.serveImage(w, r, &rec)
	case r.Method == http.MethodGet && r.URL.Path == "/v1/responses":
		// Codex on its OpenAI provider with a ChatGPT login first tries the
		// Responses API over a WebSocket; refusing the upgrade makes it
		// fall back to HTTPS streaming, which is what is scripted.
		rec.Status = http.StatusUpgradeRequired
		s.record(&rec)
		writeError(w, http.StatusUpgradeRequired, "scriptedmodel: no WebSocket transport, use HTTPS streaming")
	case r.Method == http.MethodGet && r.URL.Path == "/v1/models":
		// Codex may list models for a custom provider; an empty list makes it
		// fall back to its built-in model metadata.
		rec.Status = http.StatusOK
		s.record(&rec)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"object":"list","data":[],"models":[]}`)
	default:
		rec.Status = http.StatusNotFound
		rec.Err = "unexpected endpoint"
		s.record(&rec)
		writeError(w, http.StatusNotFound, "scriptedmodel: unexpected endpoint "+r.Method+" "+r.URL.Path)
	}
}

// MaxInFlight is the most model requests that were being answered at once:
// a test of how many turns run together reads it.
func (s *Server) MaxInFlight() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.maxInFlight
}

func (s *Server) serveResponses(w http.ResponseWriter, r *http.Request, rec *Request) {
	s.mu.Lock()
	s.inFlight++
	s.maxInFlight = max(s.maxInFlight, s.inFlight)
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.inFlight--
		s.mu.Unlock()
	}()
	body, err := readBody(w, r)
	rec.Body = body
	if err == nil {
		err = parseResponsesBody(rec, body)
	}
	if err != nil {
		rec.Status, rec.Err = http.StatusBadRequest, err.Error()
		s.record(rec)
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	resp, err := s.script.Next(rec)
	if err != nil {
		rec.Status, rec.Err = http.StatusInternalServerError, err.Error()
		s.record(rec)
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	rec.Status = http.StatusOK
	respID := s.record(rec)

	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	stopOnClose := context.AfterFunc(s.closeCtx, cancel)
	defer stopOnClose()

	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	st := &stream{w: responseFlusher{w, http.NewResponseController(w)}, respID: respID, stop: ctx.Done()}
	// A failed stream means Codex hung up or the server closed; the request
	// is already recorded and there is no one left to tell.
	_ = st.run(resp)
}

// record appends rec (numbering it) and returns a fresh response id.
func (s *Server) record(rec *Request) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec.Seq = len(s.requests) + 1
	s.requests = append(s.requests, *rec)
	s.nextResp++
	return "resp_" + strconv.Itoa(s.nextResp)
}

// writeError answers with the Responses API error body shape.
func writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]any{"error": map[string]any{
		"message": msg, "type": "scripted_model_error", "code": nil,
	}})
	_, _ = w.Write(b)
}

type responseFlusher struct {
	http.ResponseWriter
	rc *http.ResponseController
}

func (f responseFlusher) Flush() error { return f.rc.Flush() }

// readBody reads a request's JSON body, decoding zstd: Codex compresses its
// requests to the OpenAI provider when logged in with ChatGPT.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	switch enc := r.Header.Get("Content-Encoding"); {
	case err != nil:
		return body, err
	case enc == "zstd":
		return unzstd(body)
	case enc != "":
		return body, fmt.Errorf("body is %s-encoded; scripted model reads plain or zstd JSON only", enc)
	}
	return body, nil
}

func unzstd(b []byte) ([]byte, error) {
	d, err := zstd.NewReader(nil)
	if err != nil {
		return nil, fmt.Errorf("zstd decoder: %w", err)
	}
	defer d.Close()
	out, err := d.DecodeAll(b, nil)
	if err != nil {
		return nil, fmt.Errorf("decode zstd body: %w", err)
	}
	return out, nil
}
