package audit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/wecodex/wecodex/bot"
)

// Sequencer numbers each conversation's records across replicas
// (store.Audit).
type Sequencer interface {
	NextAuditSeq(ctx context.Context, conv string) (int64, error)
}

// Stream is where audit.redis records go (store.Audit).
type Stream interface {
	AppendAudit(ctx context.Context, record []byte, maxLen int64) error
}

// Options configure a Log.
type Options struct {
	// Replica is this process's replica id, in every record.
	Replica string
	// Seq numbers the records. Required.
	Seq Sequencer
	// File is audit.file: records are appended to it, one line each; ""
	// writes none.
	File string
	// Stream is the Redis stream of audit.redis; nil writes none.
	Stream Stream
	// MaxLen is audit.max_len: about how many records the stream keeps.
	MaxLen int64
	// IncludeText is audit.include_text: a message record carries its text.
	IncludeText bool
	// Secrets are values that must never appear in a record (the
	// configuration's tokens, keys and passwords).
	Secrets []string
	// Logger receives what failed; nil discards it.
	Logger *slog.Logger
}

// storeTimeout bounds one record's Redis round trips.
const storeTimeout = 5 * time.Second

// Log is the audit trail of one process: a bot.Auditor that writes records
// in the order they are handed over, on one goroutine of its own, so the
// agent's read loop never waits. Close it to write what is still queued.
type Log struct {
	opts  Options
	file  *os.File
	scrub scrubber
	log   *slog.Logger

	mu      sync.Mutex
	queue   []pending
	wake    chan struct{}
	closed  bool
	stopped chan struct{}
}

type pending struct {
	e    bot.AuditEvent
	at   time.Time
	done chan struct{} // nil: nobody waits
}

var _ bot.Auditor = (*Log)(nil)

// Open starts a Log.
func Open(opts Options) (*Log, error) {
	if opts.Seq == nil {
		return nil, errors.New("audit: Open needs a Sequencer")
	}
	l := &Log{opts: opts, scrub: newScrubber(opts.Secrets), log: opts.Logger, wake: make(chan struct{}, 1), stopped: make(chan struct{})}
	if l.log == nil {
		l.log = slog.New(slog.DiscardHandler)
	}
	if opts.File != "" {
		// 0600: records name people and what they ran. O_APPEND keeps each
		// line whole under logrotate's copytruncate.
		f, err := os.OpenFile(opts.File, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			return nil, fmt.Errorf("audit.file: %w", err)
		}
		l.file = f
	}
	go l.run()
	return l, nil
}

// Audit records e and returns once it is written or ctx ends.
func (l *Log) Audit(ctx context.Context, e bot.AuditEvent) {
	done := make(chan struct{})
	if !l.push(pending{e: e, at: time.Now(), done: done}) {
		return
	}
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// Later hands e over without waiting.
func (l *Log) Later(e bot.AuditEvent) { l.push(pending{e: e, at: time.Now()}) }

func (l *Log) push(p pending) bool {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		l.log.Warn("audit record after the trail was closed; dropped", "kind", string(p.e.Kind))
		return false
	}
	l.queue = append(l.queue, p)
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
	return true
}

// Close writes every record handed over and closes the file. A nil Log
// has nothing to close.
func (l *Log) Close() error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	already := l.closed
	l.closed = true
	l.mu.Unlock()
	if !already {
		select {
		case l.wake <- struct{}{}:
		default:
		}
	}
	<-l.stopped
	if l.file != nil && !already {
		return l.file.Close()
	}
	return nil
}

func (l *Log) run() {
	defer close(l.stopped)
	for {
		l.mu.Lock()
		batch, closed := l.queue, l.closed
		l.queue = nil
		l.mu.Unlock()
		for _, p := range batch {
			l.write(p)
			if p.done != nil {
				close(p.done)
			}
		}
		if len(batch) > 0 {
			continue
		}
		if closed {
			return
		}
		<-l.wake
	}
}

// write numbers, scrubs and writes one record. A record the store cannot
// number still goes out, with seq 0, and the log says so.
func (l *Log) write(p pending) {
	ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
	defer cancel()
	r := l.scrub.record(recordOf(p.e, l.opts.Replica, p.at, l.opts.IncludeText))
	seq, err := l.opts.Seq.NextAuditSeq(ctx, p.e.Conversation)
	if err != nil {
		l.log.Error("number an audit record; it is written with seq 0", "kind", r.Kind, "err", err)
	}
	r.Seq = seq
	b, err := encode(r)
	if err != nil {
		l.log.Error("encode an audit record", "kind", r.Kind, "err", err)
		return
	}
	if l.file != nil {
		if _, err := l.file.Write(append(b, '\n')); err != nil {
			l.log.Error("write an audit record to audit.file", "kind", r.Kind, "err", err)
		}
	}
	if l.opts.Stream != nil {
		if err := l.opts.Stream.AppendAudit(ctx, b, l.opts.MaxLen); err != nil {
			l.log.Error("write an audit record to the Redis stream", "kind", r.Kind, "err", err)
		}
	}
}

// encode is r as one JSON line, without the HTML escapes json.Marshal adds
// (a command's > stays >, as an auditor reads it).
func encode(r Record) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
