package webhook

import (
	"context"
	"sync"
	"time"

	"github.com/wecodex/wecodex/bot"
)

// WeCom redelivers a callback it got no answer for, and a storm of them
// (one msgid from several of its senders while the turn runs) used to cost
// every repeat the whole intake path: limits, backlog, the claim script,
// then the frame. A replica that saw a message's stream answers its repeats
// from here and the frame alone, one read, what a refresh costs.

const (
	// repeatsKept bounds the memory: WeCom repeats a callback within
	// seconds, so only recent messages matter.
	repeatsKept = 4096
	// repeatTTL is far beyond WeCom's retries and below the store's
	// dedupe TTL, so an entry never outlives the claim it mirrors for long.
	repeatTTL = 10 * time.Minute
)

// repeatKey names one user's message in one conversation, as the dedupe
// claim does.
type repeatKey struct{ conv, user, msgID string }

type repeatEntry struct {
	stream string
	at     time.Time
}

// repeats remembers the stream each recently received message was claimed
// for on this replica. It only ever shortcuts to a frame that exists and
// that the message's sender owns; anything else takes the full path.
type repeats struct {
	mu    sync.Mutex
	by    map[repeatKey]repeatEntry
	order []repeatKey // oldest first, for eviction
}

func repeatOf(m bot.Message) repeatKey {
	return repeatKey{conv: m.Conversation.Key(), user: m.User, msgID: m.ID}
}

func (r *repeats) remember(k repeatKey, stream string, now time.Time) {
	if k.msgID == "" || stream == "" {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.by == nil {
		r.by = make(map[repeatKey]repeatEntry)
	}
	if _, ok := r.by[k]; !ok {
		if len(r.order) >= repeatsKept {
			delete(r.by, r.order[0])
			r.order = r.order[1:]
		}
		r.order = append(r.order, k)
	}
	r.by[k] = repeatEntry{stream: stream, at: now}
}

func (r *repeats) stream(k repeatKey, now time.Time) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.by[k]
	if !ok || now.Sub(e.at) > repeatTTL {
		return "", false
	}
	return e.stream, true
}

// repeatFrame answers m from its stream's frame when this replica saw m
// before and the frame is there and m's sender's; ok false means m takes
// the full path (a first delivery, or one this replica cannot vouch for).
func (c *Channel) repeatFrame(ctx context.Context, m bot.Message) (Frame, bool) {
	stream, ok := c.repeats.stream(repeatOf(m), time.Now())
	if !ok {
		return Frame{}, false
	}
	s, ok, err := c.loadFrame(ctx, stream)
	if err != nil || !ok || s.owner != owner(m.Conversation, m.User) {
		return Frame{}, false
	}
	return s.frame(stream), true
}
