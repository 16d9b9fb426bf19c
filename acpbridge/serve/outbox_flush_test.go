package serve

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
)

// A flush waits until what was pushed before it is written; when that write
// failed, the flush says so instead of reporting the updates delivered.
func TestOutboxFlushReportsAFailedWrite(t *testing.T) {
	broken := errors.New("client stream closed")
	fail := true
	w := writerFunc(func(p []byte) (int, error) {
		if fail {
			return 0, broken
		}
		return len(p), nil
	})
	o := newOutbox("s", w, slog.New(slog.NewTextHandler(io.Discard, nil)))
	defer func() { o.close(); <-o.done }()
	o.push(messageChunk(nil, "lost"))
	if err := o.flush(context.Background()); !errors.Is(err, broken) {
		t.Fatalf("flush after a failed write = %v, want %v", err, broken)
	}
	// The failure was reported; what is written after it flushes cleanly.
	fail = false
	o.push(messageChunk(nil, "sent"))
	if err := o.flush(context.Background()); err != nil {
		t.Fatalf("flush after a good write = %v, want nil", err)
	}
}
