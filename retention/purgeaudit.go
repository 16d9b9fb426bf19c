package retention

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/wecodex/wecodex/audit"
	"github.com/wecodex/wecodex/store"
)

// purgeStream deletes the stream's records drop picks, telling seen the
// conversation of each (so a conversation no longer listed is still found).
func purgeStream(ctx context.Context, s AuditRecords, drop func(audit.Record) bool, seen func(conv string)) (int64, error) {
	var ids []string
	err := s.ReadAudit(ctx, time.Time{}, func(e store.AuditEntry) error {
		rec, err := audit.Decode(e.Record)
		if err != nil || !drop(rec) {
			return nil // an entry wecodex cannot read names nobody it knows
		}
		seen(rec.Conversation)
		ids = append(ids, e.ID)
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("purge audit stream: %w", err)
	}
	var n int64
	for len(ids) > 0 {
		batch := ids[:min(len(ids), 500)]
		ids = ids[len(batch):]
		d, err := s.DeleteAudit(ctx, batch)
		n += d
		if err != nil {
			return n, fmt.Errorf("purge audit stream: %w", err)
		}
	}
	return n, nil
}

// purgeFile removes the lines drop picks from audit.file, rewriting it in
// place: the same file, so a running replica's O_APPEND descriptor goes
// on writing to it (what logrotate's copytruncate relies on too). Lines a
// replica appends while the file is rewritten are carried over; one
// written in the instant between the last read and the truncation can be
// lost, as with copytruncate. Rotated files are not touched: logrotate's
// maxage ages them out.
func purgeFile(path string, drop func(audit.Record) bool) (int, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if os.IsNotExist(err) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("purge audit.file: %w", err)
	}
	defer f.Close()
	var kept bytes.Buffer
	removed, read := 0, int64(0)
	for {
		chunk, err := io.ReadAll(io.NewSectionReader(f, read, 1<<62))
		if err != nil {
			return 0, fmt.Errorf("purge audit.file: %w", err)
		}
		// Only whole lines: a replica may be halfway through one.
		if i := bytes.LastIndexByte(chunk, '\n'); i >= 0 {
			chunk = chunk[:i+1]
		} else {
			chunk = nil
		}
		if len(chunk) == 0 {
			break
		}
		read += int64(len(chunk))
		for line := range bytes.Lines(chunk) {
			if rec, err := audit.Decode(bytes.TrimSpace(line)); err == nil && drop(rec) {
				removed++
				continue
			}
			kept.Write(line)
		}
	}
	if removed == 0 {
		return 0, nil
	}
	if _, err := f.WriteAt(kept.Bytes(), 0); err != nil {
		return 0, fmt.Errorf("purge audit.file: %w", err)
	}
	if err := f.Truncate(int64(kept.Len())); err != nil {
		return 0, fmt.Errorf("purge audit.file: %w", err)
	}
	return removed, nil
}
