package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// SaveAttachment keeps the bytes of attachment index of the message queued
// on stream in conv, for whichever replica runs its turn (TTL AttachmentTTL).
func (s *Attachments) SaveAttachment(ctx context.Context, conv, stream string, index int, data []byte) error {
	if err := s.client.Set(ctx, s.keys.Conv(conv).Attachment(stream, index), data, AttachmentTTL).Err(); err != nil {
		return fmt.Errorf("save attachment %d of %s: %w", index, stream, err)
	}
	return nil
}

// Attachment returns the bytes SaveAttachment kept; ok is false when they
// are gone (expired, or deleted when the turn finished).
func (s *Attachments) Attachment(ctx context.Context, conv, stream string, index int) (data []byte, ok bool, err error) {
	data, err = s.client.Get(ctx, s.keys.Conv(conv).Attachment(stream, index)).Bytes()
	switch {
	case errors.Is(err, redis.Nil):
		return nil, false, nil
	case err != nil:
		return nil, false, fmt.Errorf("read attachment %d of %s: %w", index, stream, err)
	}
	return data, true, nil
}

// DeleteAttachments drops attachments 0..n-1 of the message queued on
// stream, in one command (the keys share the conversation's hash tag).
func (s *Attachments) DeleteAttachments(ctx context.Context, conv, stream string, n int) error {
	if n <= 0 {
		return nil
	}
	keys := make([]string, n)
	for i := range keys {
		keys[i] = s.keys.Conv(conv).Attachment(stream, i)
	}
	if err := s.client.Del(ctx, keys...).Err(); err != nil {
		return fmt.Errorf("delete attachments of %s: %w", stream, err)
	}
	return nil
}
