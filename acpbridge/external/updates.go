package external

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"

	acp "github.com/coder/acp-go-sdk"
	"github.com/wecodex/wecodex/acpbridge"
)

// updateReader stands between an agent's stdout and acp-go-sdk's connection,
// and takes the notifications out of the stream before the SDK sees them.
//
// Why: the SDK hands inbound notifications from its reader goroutine to its
// handler goroutine through a queue of fixed capacity (1024 in v0.13.0), and
// when that queue is full it closes the connection. An agent streaming fast
// (our own `wecodex codex-acp` writes tens of thousands of chunks a second)
// fills it whenever the handler goroutine is starved for a moment, which ends
// the turn with "the agent closed its output". Here session/update is decoded
// (once: text chunks by a scanner, the rest by the SDK's types), routed by phase
// and handed to the client on this reader's own goroutine, in stream order,
// and nothing is read from the agent until that is done: a slow consumer
// makes the agent's writes wait in the pipe instead of losing the connection.
// Everything else (responses, requests, $/cancel_request) goes on to the SDK
// in the same order, so a response still comes after every update before it.
//
// The client gathers the updates of one read and the reader flushes them
// before it passes a line on to the SDK and before a read that may wait:
// one hand-over per read, not per line. Reads from src are paced
// (internal/readpace), so one read holds every line the agent wrote meanwhile.
type updateReader struct {
	src     io.Reader
	client  updateSink
	log     *slog.Logger
	pr      *io.PipeReader
	pw      *io.PipeWriter
	stopped chan struct{} // closed when run returns
	seen    seenStrings   // the run goroutine's own
}

// maxAgentLine bounds one message from the agent, as the SDK's own reader does.
const maxAgentLine = 10 << 20

// updateSink is what the reader hands updates to: agentClient.
type updateSink interface {
	deliver(inboundUpdate) // gathers, on the reader's goroutine
	flushDelivered()       // hands what was gathered on
}

func newUpdateReader(src io.Reader, client updateSink, log *slog.Logger) *updateReader {
	pr, pw := io.Pipe()
	return &updateReader{src: src, client: client, log: log, pr: pr, pw: pw, stopped: make(chan struct{})}
}

// Read is what the SDK reads: the agent's stream without its notifications.
func (r *updateReader) Read(p []byte) (int, error) { return r.pr.Read(p) }

// run reads the agent's stream until it ends or the SDK stops reading
// (sdkDone), and then ends the SDK's stream the same way.
func (r *updateReader) run(sdkDone <-chan struct{}) {
	defer close(r.stopped)
	go func() {
		// A Write to the SDK must not wait forever once the SDK has gone.
		select {
		case <-sdkDone:
			r.pr.CloseWithError(errors.New("acp connection closed"))
		case <-r.stopped:
		}
	}()
	br := bufio.NewReaderSize(r.src, 64<<10)
	var long []byte
	for {
		if !lineBuffered(br) {
			r.client.flushDelivered() // the next read may wait for the agent
		}
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A long line (a large history replay): gather it.
			long = append(long[:0], line...)
			for errors.Is(err, bufio.ErrBufferFull) && len(long) <= maxAgentLine {
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			if len(long) > maxAgentLine {
				r.client.flushDelivered()
				r.pw.CloseWithError(errors.New("agent message too long"))
				return
			}
			line = long
		}
		if len(line) > 0 && !r.take(line) {
			r.client.flushDelivered()
			if _, werr := r.pw.Write(line); werr != nil {
				return
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
			}
			r.client.flushDelivered()
			r.pw.CloseWithError(err)
			return
		}
	}
}

// lineBuffered reports whether br holds a whole line, which ReadSlice then
// returns without reading.
func lineBuffered(br *bufio.Reader) bool {
	b, _ := br.Peek(br.Buffered())
	return bytes.IndexByte(b, '\n') >= 0
}

// envelope is as much of a JSON-RPC message as it takes to route it.
type envelope struct {
	ID     *json.RawMessage `json:"id"`
	Method string           `json:"method"`
	Params json.RawMessage  `json:"params"`
}

// take handles line when it is a notification for the client and reports
// whether it did; anything else is left for the SDK.
func (r *updateReader) take(line []byte) bool {
	method, params, ok := scanEnvelope(line)
	if !ok {
		return r.takeDecoded(line)
	}
	switch method {
	case "":
		return false // a response, a request, or something the SDK reports
	case acp.ClientMethodSessionUpdate:
		if in, ok := scanUpdate(params, &r.seen); ok {
			r.client.deliver(in)
			return true
		}
		r.takeUpdate(params)
		return true
	default:
		return r.takeOther(method)
	}
}

// takeDecoded is take for a line the scanner left alone: encoding/json
// decides what it is.
func (r *updateReader) takeDecoded(line []byte) bool {
	var m envelope
	if err := json.Unmarshal(line, &m); err != nil || m.ID != nil || m.Method == "" {
		return false
	}
	if m.Method == acp.ClientMethodSessionUpdate {
		r.takeUpdate(m.Params)
		return true
	}
	return r.takeOther(m.Method)
}

// takeUpdate decodes a session/update's params with the SDK's types: every
// update but the common text chunk.
func (r *updateReader) takeUpdate(params []byte) {
	var n acp.SessionNotification
	if err := json.Unmarshal(params, &n); err != nil {
		r.log.Error("agent sent an undecodable session/update", "err", err)
		return
	}
	if err := n.Validate(); err != nil {
		r.log.Error("agent sent an invalid session/update", "err", err)
		return
	}
	kind, ok := acpbridge.UpdateKind(n.Update)
	if !ok {
		r.log.Debug("dropping unknown session update", "session", n.SessionId, "kind", kind)
		return
	}
	r.client.deliver(routeUpdate(n))
}

// takeOther handles a notification other than session/update.
func (r *updateReader) takeOther(method string) bool {
	if method == "$/cancel_request" {
		// The SDK handles it on its reader, never queued.
		return false
	}
	// Any other notification (an extension's "_..." or an unstable
	// method) has no handler in agentClient: the SDK would only log it.
	// Dropping it here keeps it out of the SDK's bounded queue too.
	r.log.Debug("ignoring agent notification", "method", method)
	return true
}
