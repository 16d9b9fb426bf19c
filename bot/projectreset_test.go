package bot_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/internal/chattest"
	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
)

// heldReset is the registry's Projects whose Reset waits, once it is
// called, until the test lets it go on.
type heldReset struct {
	registryProjects
	reached, release chan struct{}
}

func (p heldReset) Reset(ctx context.Context, project, conv string) (bool, error) {
	close(p.reached)
	select {
	case <-p.release:
	case <-ctx.Done():
		return true, ctx.Err()
	}
	return p.registryProjects.Reset(ctx, project, conv)
}

// /reset yes holds the conversation's lease while it discards: a message
// sent while the worktree is being reset waits in the queue (no turn can
// take the lease), and runs once the reset is over, on the reset worktree.
func TestResetHoldsTheLease(t *testing.T) {
	held := heldReset{reached: make(chan struct{}), release: make(chan struct{})}
	r := newProjectRigWith(t, sm.ByPrompt(map[string][]sm.Response{
		"write team":  writes("c1", "team line"),
		"write again": writes("c2", "again line"),
	}), func(p registryProjects) bot.Projects { held.registryProjects = p; return held })
	room := chattest.Room("team")
	r.turn(t, "m1", room, "carol", "write team")
	dir := r.workspace(t, "api", room).Dir

	answer := make(chan string, 1)
	go func() {
		rc, err := r.e.Receive(t.Context(), chattest.Message("r1", room, "carol", "/reset yes"))
		if err != nil {
			rc.Reply.Text = err.Error()
		}
		answer <- rc.Reply.Text
	}()
	<-held.reached
	replica, claim, err := r.st.Queue.Lease(t.Context(), room.Key())
	if err != nil || replica != "replica-a" || claim == 0 {
		t.Fatalf("during the reset the lease is %q %d (%v), want replica-a's claim", replica, claim, err)
	}
	r.say(t, "m2", room, "carol", "write again")
	if queued, err := r.st.Queue.Queued(t.Context(), room.Key()); err != nil || len(queued) != 1 {
		t.Fatalf("a message sent during the reset: %d queued (%v), want 1 waiting for the reset", len(queued), err)
	}
	if _, token, err := r.st.Queue.Lease(t.Context(), room.Key()); err != nil || token != claim {
		t.Fatalf("a turn took the lease (token %d, %v) from the reset's claim %d", token, err, claim)
	}
	close(held.release)
	if got, want := <-answer, "OK — `api` is back at the project's ref: every change of this conversation there is gone."; got != want {
		t.Fatalf("/reset yes = %q, want %q", got, want)
	}
	r.chat.WaitForCount(t, room, "finish", 2)
	if got := readFile(t, filepath.Join(dir, "README.md")); got != "hello\nagain line\n" {
		t.Fatalf("README.md = %q, want the reset's hello and then the waiting turn's line", got)
	}
}
