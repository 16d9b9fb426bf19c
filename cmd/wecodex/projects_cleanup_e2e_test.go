package main

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/wecomtest"
	"github.com/wecodex/wecodex/projects"
)

// serve removes a worktree idle past projects.idle_cleanup and keeps its
// branch: with idle_cleanup 1s, a turn held past that keeps its worktree
// (its lease says a turn holds the conversation) and commits there; once
// it ends the worktree goes, the branch with the commit stays in the
// conversation's git directory, and the next message checks it out again.
// Every wait is on a log line or the model's gate, never on the clock.
func TestE2EIdleWorktreeGoesAndItsBranchStays(t *testing.T) {
	gate := sm.NewGate()
	branch := projects.Branch("single:alice")
	held := []probe{{"git -c user.name=alice -c user.email=alice@example.com commit --quiet --allow-empty -m held && git log --format=%s", 0, "held\nfirst\n"}}
	back := []probe{{"git log --format=%s && git branch --show-current", 0, "held\nfirst\n" + branch + "\n"}}
	e := newE2EIn(t, sm.ByPrompt(map[string][]sm.Response{
		"alice holds": {
			sm.Reply(sm.MessageDeltas(sm.PhaseCommentary, "Holding", " on."), waitedExec("held_0", held[0].cmd)).WithHold(1, gate),
			sm.Reply(sm.Message(sm.PhaseFinalAnswer, "held probed.")),
		},
		"alice is back": probeReplies("back", back),
	}), "danger-full-access")
	e.sandbox = "workspace-write"
	e.env = []string{"WECODEX_PROJECTS_IDLE_CLEANUP=1s", "WECODEX_LOG_LEVEL=debug"}
	e.extra = fmt.Sprintf("projects:\n  api:\n    git: %q\n    ref: main\n    users: [alice]\n", gitRemote(t))
	wt, gitDir := projectDirs(e.workspace, "api", "single:alice")
	b := e.serve(t, "5m30s")
	ctx := within(t, 4*time.Minute)

	s, err := b.sim.Send(ctx, wecomtest.Message{From: "alice", Text: "alice holds"})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-gate.Reached():
	case <-ctx.Done():
		t.Fatalf("the turn never reached the model; logs:\n%s", b.logs)
	}
	b.logs.waitFor(t, ctx, "idle worktree kept: a turn holds its conversation", map[string]any{"branch": branch})
	gate.Release()
	if last, seen := follow(t, ctx, b.sim, s.ID); !strings.HasSuffix(last.Content, "held probed.") {
		t.Fatalf("the held turn's final frame %q; frames %q", last.Content, seen)
	}
	checkProbes(t, e.h.Server.ModelRequests(), "held", held)

	b.logs.waitFor(t, ctx, "idle worktree removed; its branch stays", map[string]any{"branch": branch})
	if _, err := os.Stat(wt); !os.IsNotExist(err) {
		t.Fatalf("the idle worktree %s is still there (%v)", wt, err)
	}
	if got := gitIn(t, "", "--git-dir", gitDir, "log", "--format=%s", branch); got != "held\nfirst" {
		t.Fatalf("branch %s after cleanup: %q", branch, got)
	}

	s, err = b.sim.Send(ctx, wecomtest.Message{From: "alice", Text: "alice is back"})
	if err != nil {
		t.Fatal(err)
	}
	if last, seen := follow(t, ctx, b.sim, s.ID); !strings.HasSuffix(last.Content, "back probed.") {
		t.Fatalf("the next turn's final frame %q; frames %q", last.Content, seen)
	}
	checkProbes(t, e.h.Server.ModelRequests(), "back", back)
	b.logs.waitFor(t, ctx, "worktree made again from its branch", map[string]any{"branch": branch})
}
