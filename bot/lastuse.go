package bot

import (
	"context"
	"log/slog"
	"time"
)

// touch records that q's turn starts now in its conversation, for `wecodex
// sessions`' last use. It is a listing, not state any turn depends on, so
// a failure is only logged.
func (r *turnRunner) touch(ctx context.Context, log *slog.Logger, q queued) {
	if err := r.store.TouchConversation(ctx, q.Conversation, q.User, time.Now()); err != nil {
		log.Warn("record the conversation's last use", "err", err)
	}
}
