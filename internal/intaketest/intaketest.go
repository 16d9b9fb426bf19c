// Package intaketest records what a channel hands the engine's intake, for
// the channels' tests: the message exactly as the channel built it.
package intaketest

import (
	"bytes"
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/wecodex/wecodex/bot"
)

// Intake is what a channel hands messages to (*bot.Engine implements it).
type Intake interface {
	Receive(ctx context.Context, m bot.Message) (bot.Receipt, error)
	Allowed(m bot.Message) bool
}

// Recorder is an Intake that keeps every message and then hands it to Next
// (nil: it answers an empty receipt).
type Recorder struct {
	Next Intake
	// Strangers are the users Allowed refuses when there is no Next.
	Strangers []string

	mu   sync.Mutex
	got  []bot.Message
	took chan struct{}
}

// New returns a Recorder in front of next.
func New(next Intake) *Recorder {
	return &Recorder{Next: next, took: make(chan struct{}, 64)}
}

// Allowed asks Next, or refuses Strangers.
func (r *Recorder) Allowed(m bot.Message) bool {
	if r.Next != nil {
		return r.Next.Allowed(m)
	}
	return !slices.Contains(r.Strangers, m.User)
}

// Receive keeps m and passes it on.
func (r *Recorder) Receive(ctx context.Context, m bot.Message) (bot.Receipt, error) {
	r.mu.Lock()
	r.got = append(r.got, m)
	r.mu.Unlock()
	r.took <- struct{}{}
	if r.Next == nil {
		return bot.Receipt{}, nil
	}
	return r.Next.Receive(ctx, m)
}

// Wait waits for the next message received, failing t after guard.
func (r *Recorder) Wait(t testing.TB, guard time.Duration) bot.Message {
	t.Helper()
	select {
	case <-r.took:
	case <-time.After(guard):
		t.Fatal("no message reached intake")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.got[len(r.got)-1]
}

// Count is how many messages were received.
func (r *Recorder) Count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.got)
}

// All is every message received so far, in the order intake got them.
func (r *Recorder) All() []bot.Message {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.got)
}

// SameAttachments compares attachments field by field, bytes included.
func SameAttachments(got, want []bot.Attachment) bool {
	return slices.EqualFunc(got, want, func(a, b bot.Attachment) bool {
		return a.Kind == b.Kind && a.Name == b.Name && a.MIME == b.MIME && bytes.Equal(a.Data, b.Data) && a.Problem == b.Problem
	})
}

// PNG is a 1×1 picture, which http.DetectContentType calls image/png.
var PNG = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\xdac\xf8\xcf\xc0\xf0\x1f\x00\x05\x00\x01\xff\x89\x99=\x1d\x00\x00\x00\x00IEND\xaeB`\x82")
