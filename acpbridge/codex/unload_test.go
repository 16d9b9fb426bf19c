package codex

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"

	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
)

// 80 conversations one after another: idle threads are unloaded, so the
// app-server holds as many open files after 80 as after 10; the 81st works,
// and the 1st, returning, is resumed with its history.
func TestIdleThreadsUnloadedSoAppServerDoesNotGrow(t *testing.T) {
	ctx := testCtx(t)
	a, h := newAgent(t, sm.ScriptFunc(func(r *sm.Request) (sm.Response, error) {
		return sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Answer to "+r.UserText+".")), nil
	}), sm.HomeOptions{}, Options{IdleUnload: time.Nanosecond})
	type usage struct{ fds, rss int }
	at := map[int]usage{}
	var ids []acp.SessionId
	for i := 1; i <= 81; i++ {
		id, err := a.NewSession(ctx, h.Workspace)
		if err != nil {
			t.Fatalf("conversation %d: %v", i, err)
		}
		ids = append(ids, id)
		q := fmt.Sprintf("question %d", i)
		rec, stop := prompt(t, ctx, a, id, q)
		if stop != acp.StopReasonEndTurn {
			t.Fatalf("conversation %d stop = %q", i, stop)
		}
		equalLines(t, q, texts(rec), []string{"message Answer to " + q + "."})
		if i == 10 || i == 40 || i == 80 {
			waitFor(t, ctx, fmt.Sprintf("every thread unloaded after %d conversations", i), func() bool {
				return len(a.loadedThreads(t, ctx)) == 0
			})
			fds, rss := procUsage(t, a.appServerPid(t))
			at[i] = usage{fds, rss}
		}
	}
	// The figures are the native app-server's, not a launcher's in front.
	if exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", a.appServerPid(t))); err != nil || filepath.Base(exe) != "codex" {
		t.Fatalf("measured process runs %q (%v), want the native codex binary", exe, err)
	}
	t.Logf("app-server after 10/40/80 conversations: open files %d/%d/%d, RSS %d/%d/%d KiB",
		at[10].fds, at[40].fds, at[80].fds, at[10].rss, at[40].rss, at[80].rss)
	// A thread that stays loaded costs about two files, so a leak shows as
	// +140 over these 70 conversations; pooled connections to the model and
	// files Codex is still closing move the count by a few (59 → 64 seen at
	// load 20), which is not growth.
	if at[80].fds > at[10].fds+16 {
		t.Fatalf("open files grew from %d after 10 conversations to %d after 80", at[10].fds, at[80].fds)
	}

	rec, stop := prompt(t, ctx, a, ids[0], "question again")
	if stop != acp.StopReasonEndTurn {
		t.Fatalf("returning conversation stop = %q", stop)
	}
	equalLines(t, "returning", texts(rec), []string{"message Answer to question again."})
	reqs := h.Server.ModelRequests()
	last := reqs[len(reqs)-1]
	if last.UserText != "question again" || !bodyHas(last.Body, "Answer to question 1.") || !bodyHas(last.Body, "question 1") {
		t.Fatalf("returning conversation's request (user text %q) lacks its history", last.UserText)
	}
	if g := a.generation(); g != 1 {
		t.Fatalf("app-server started %d times, want 1", g)
	}
}
