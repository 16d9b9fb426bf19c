package serve

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge/internal/ordered"
)

// outboxMaxWrite bounds what one write carries, so a backlog is written in
// pieces of bounded memory.
const outboxMaxWrite = 256 << 10

// encodeTextByHand switches the text-chunk fast path (serve_encode.go).
const encodeTextByHand = true

// outbox sends one served session's updates to the client, in the order the
// Agent produced them, from a goroutine it owns: push never waits, so a slow
// client never blocks the Agent's reader. Each wake-up writes everything
// that gathered in one call, and adjacent text chunks of the same kind and
// message become one chunk (ACP clients append chunk texts, so the client
// sees the same text). Nothing is reordered, and nothing merges across a
// change of kind or message id, another update, or a flush.
//
// The outbox adds no delay of its own: the Codex bridge hands over a burst
// of updates per paced read (see acpbridge/codex readPace), and whatever
// arrives while a batch is being written makes the next batch. (A 2 ms
// gather timer here cost more CPU in wake-ups than it saved.)
type outbox struct {
	session acp.SessionId
	w       io.Writer // shared with the SDK's connection; one Write is one or more whole messages
	log     *slog.Logger

	q    *ordered.Queue[outItem]
	done <-chan struct{} // closed once closed and everything queued is written

	// werr is the first write error since the last flush point; only the
	// queue's goroutine touches it.
	werr error
}

// outItem is an update to send, or (barrier set) a flush point.
type outItem struct {
	u acp.SessionUpdate
	// barrier receives the outcome of writing everything before it: nil,
	// or the first write error since the previous flush point. Buffered, so
	// a flush that gave up never blocks the writer.
	barrier chan error
}

func newOutbox(session acp.SessionId, w io.Writer, log *slog.Logger) *outbox {
	o := &outbox{session: session, w: w, log: log}
	var (
		buf   []byte
		texts []string
	)
	o.q = ordered.New(func(batch []outItem) { buf, texts = o.write(batch, buf[:0], texts) })
	o.done = o.q.Done()
	return o
}

// push queues u and reports false when the outbox is closed.
func (o *outbox) push(u acp.SessionUpdate) bool {
	return o.q.Push(outItem{u: u})
}

// flush waits until everything pushed before it has been written, and
// reports a write that failed since the previous flush.
func (o *outbox) flush(ctx context.Context) error {
	reached := make(chan error, 1)
	if err := o.q.Flush(ctx, outItem{barrier: reached}, reached); err != nil {
		return fmt.Errorf("send session updates: %w", err)
	}
	return nil
}

// close stops the outbox once what is already queued has been written. It
// does not wait; <-o.done does.
func (o *outbox) close() { o.q.Close() }

// write encodes batch and writes it, merging runs of text chunks.
func (o *outbox) write(batch []outItem, buf []byte, texts []string) ([]byte, []string) {
	for i := 0; i < len(batch); {
		it := batch[i]
		if it.barrier != nil {
			buf = o.send(buf)
			it.barrier <- o.werr
			o.werr = nil
			i++
			continue
		}
		kind, id, text, ok := textChunk(it.u)
		if !ok {
			var err error
			if buf, err = appendNotification(buf, o.session, it.u); err != nil {
				o.log.Warn("drop session update", "session", o.session, "err", err)
			}
			i++
		} else {
			texts = append(texts[:0], text)
			j := i + 1
			for ; j < len(batch); j++ {
				k, jid, t, ok := textChunk(batch[j].u)
				if !ok || k != kind || !sameMessage(id, jid) {
					break
				}
				texts = append(texts, t)
			}
			buf = o.appendText(buf, kind, id, texts)
			clear(texts)
			i = j
		}
		if len(buf) >= outboxMaxWrite {
			buf = o.send(buf)
		}
	}
	return o.send(buf), texts
}

func (o *outbox) appendText(buf []byte, kind string, id *string, texts []string) []byte {
	if encodeTextByHand {
		return appendTextNotification(buf, o.session, kind, id, texts)
	}
	text := strings.Join(texts, "")
	var u acp.SessionUpdate
	if kind == "agent_message_chunk" {
		u.AgentMessageChunk = &acp.SessionUpdateAgentMessageChunk{SessionUpdate: kind, Content: acp.TextBlock(text), MessageId: id}
	} else {
		u.AgentThoughtChunk = &acp.SessionUpdateAgentThoughtChunk{SessionUpdate: kind, Content: acp.TextBlock(text), MessageId: id}
	}
	buf, err := appendNotification(buf, o.session, u)
	if err != nil {
		o.log.Warn("drop session update", "session", o.session, "err", err)
	}
	return buf
}

// send writes buf when it holds anything and returns it emptied.
func (o *outbox) send(buf []byte) []byte {
	if len(buf) == 0 {
		return buf
	}
	if _, err := o.w.Write(buf); err != nil {
		o.log.Debug("send session updates", "session", o.session, "err", err)
		if o.werr == nil {
			o.werr = err
		}
	}
	return buf[:0]
}

// lockedWriter serializes whole writes of the SDK's connection and of the
// outboxes on one stream: acp-go-sdk writes each message with a single Write
// call, and so does an outbox with each batch of whole messages, so messages
// never interleave.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
