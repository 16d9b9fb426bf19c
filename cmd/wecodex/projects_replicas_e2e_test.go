package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/wecomtest"
	"github.com/wecodex/wecodex/projects"
)

// Two replicas on one Redis, sharing a state directory and a workspace
// root, each get a message for the same git project at once, before either
// has cloned it: the project is cloned once, each conversation gets its
// worktree on its own branch, and both turns run git in it.
func TestE2ETwoReplicasCloneOneProjectAtOnce(t *testing.T) {
	var script sm.Script
	e := newE2EIn(t, sm.ScriptFunc(func(r *sm.Request) (sm.Response, error) { return script.Next(r) }), "danger-full-access")
	e.sandbox = "workspace-write"
	bare := gitRemote(t)
	e.extra = fmt.Sprintf("projects:\n  api:\n    git: %q\n    users: [alice, bob]\n", bare)
	wtA, _ := projectDirs(e.workspace, "api", "single:alice")
	wtB, _ := projectDirs(e.workspace, "api", "single:bob")
	probes := map[string][]probe{
		"alice": {{"git log --format=%s && git branch --show-current && pwd", 0, "first\n" + projects.Branch("single:alice") + "\n" + wtA + "\n"}},
		"bob":   {{"git log --format=%s && git branch --show-current && pwd", 0, "first\n" + projects.Branch("single:bob") + "\n" + wtB + "\n"}},
	}
	script = sm.ByPrompt(map[string][]sm.Response{
		"alice clones": probeReplies("alice", probes["alice"]),
		"bob clones":   probeReplies("bob", probes["bob"]),
	})
	replicas := []*botProc{e.serve(t, "5m30s"), e.serve(t, "5m30s")}
	ctx := within(t, 4*time.Minute)
	var wg sync.WaitGroup
	for i, who := range []string{"alice", "bob"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sim := replicas[i].sim
			s, err := sim.Send(ctx, wecomtest.Message{From: who, Text: who + " clones"})
			if err != nil {
				t.Error(err)
				return
			}
			if last, seen := follow(t, ctx, sim, s.ID); !strings.HasSuffix(last.Content, who+" probed.") {
				t.Errorf("%s's final frame %q; frames seen %q", who, last.Content, seen)
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.Fatalf("logs:\n%s\n%s", replicas[0].logs, replicas[1].logs)
	}
	reqs := e.h.Server.ModelRequests()
	checkProbes(t, reqs, "alice", probes["alice"])
	checkProbes(t, reqs, "bob", probes["bob"])
	cloned := len(replicas[0].logs.withMsg("project cloned", nil)) + len(replicas[1].logs.withMsg("project cloned", nil))
	made := len(replicas[0].logs.withMsg("worktree made", nil)) + len(replicas[1].logs.withMsg("worktree made", nil))
	if cloned != 1 || made != 2 {
		t.Errorf("%d clones and %d worktrees made; want 1 and 2", cloned, made)
	}
	state := filepath.Join(e.h.ShellHome, ".local", "state", "wecodex", "projects", "api")
	if left, _ := filepath.Glob(filepath.Join(state, ".clone-*")); len(left) != 0 {
		t.Errorf("half-made clones left: %v", left)
	}
	if got := gitIn(t, "", "--git-dir", filepath.Join(state, "clone.git"), "log", "--format=%s", "refs/remotes/origin/HEAD"); got != "first" {
		t.Errorf("the clone's origin/HEAD log %q", got)
	}
}
