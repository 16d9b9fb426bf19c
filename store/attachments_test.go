package store

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"
)

// An attachment's bytes are kept per conversation, stream and index, exactly,
// for AttachmentTTL, and are gone once deleted; another stream's are not
// touched.
func TestAttachments(t *testing.T) { forEachBackend(t, testAttachments) }

func testAttachments(t *testing.T, s *stores) {
	ctx := context.Background()
	const conv = "single:att"
	pic := bytes.Repeat([]byte{0x89, 'P', 'N', 'G', 0, 0xff}, 100_000) // binary, 600 KB
	log := []byte("line 1\nline 2\n")
	for i, b := range [][]byte{pic, log} {
		if err := s.SaveAttachment(ctx, conv, "s1", i, b); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.SaveAttachment(ctx, conv, "s2", 0, []byte("other message")); err != nil {
		t.Fatal(err)
	}
	for i, want := range [][]byte{pic, log} {
		got, ok, err := s.Attachment(ctx, conv, "s1", i)
		if err != nil || !ok || !bytes.Equal(got, want) {
			t.Fatalf("Attachment(s1, %d) = %d bytes, %v, %v; want the %d bytes saved", i, len(got), ok, err, len(want))
		}
	}
	if ttl := s.Client().PTTL(ctx, s.Keys().Conv(conv).Attachment("s1", 0)).Val(); ttl <= AttachmentTTL-time.Minute || ttl > AttachmentTTL {
		t.Fatalf("attachment TTL %v, want %v", ttl, AttachmentTTL)
	}
	if _, ok, err := s.Attachment(ctx, conv, "s1", 2); err != nil || ok {
		t.Fatalf("Attachment of an index never saved = %v %v, want not found", ok, err)
	}
	if err := s.DeleteAttachments(ctx, conv, "s1", 2); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if _, ok, err := s.Attachment(ctx, conv, "s1", i); err != nil || ok {
			t.Fatalf("Attachment(s1, %d) after the delete = %v %v, want gone", i, ok, err)
		}
	}
	if got, ok, err := s.Attachment(ctx, conv, "s2", 0); err != nil || !ok || string(got) != "other message" {
		t.Fatalf("Attachment(s2, 0) = %q %v %v: another stream's bytes were touched", got, ok, err)
	}
	if err := s.DeleteAttachments(ctx, conv, "none", 0); err != nil {
		t.Fatalf("DeleteAttachments of nothing: %v", err)
	}
}

// A save to a frozen Redis fails with the caller's deadline, so intake can
// refuse the delivery and WeCom's retry stores the bytes again; once Redis
// answers, the retry's save is read back whole. A Redis restarted empty has
// lost them: the turn is told they are gone, not handed an error to fail on.
func TestAttachmentsWhenRedisStallsOrRestarts(t *testing.T) {
	r := startRedisProc(t)
	s := openProcStore(t, r)
	ctx := context.Background()
	const conv = "single:att-fault"
	if err := s.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	r.Freeze()
	stalled, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	err := s.SaveAttachment(stalled, conv, "s1", 0, []byte("picture"))
	cancel()
	r.Thaw()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("SaveAttachment on a frozen Redis: %v, want the deadline exceeded", err)
	}
	if err := s.SaveAttachment(ctx, conv, "s1", 0, []byte("picture")); err != nil {
		t.Fatal(err)
	}
	if got, ok, err := s.Attachment(ctx, conv, "s1", 0); err != nil || !ok || string(got) != "picture" {
		t.Fatalf("Attachment after the retry = %q %v %v", got, ok, err)
	}
	r.Restart()
	if _, ok, err := s.Attachment(ctx, conv, "s1", 0); err != nil || ok {
		t.Fatalf("Attachment after Redis restarted empty = %v %v, want gone without an error", ok, err)
	}
}
