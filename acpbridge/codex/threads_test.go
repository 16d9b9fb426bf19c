package codex

import (
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/internal/scriptedmodel"
)

// thread/list answers for the threads named and no other; a name set by
// one process is what another lists; a fork carries its original's
// history, another process can run it at once (the forking one does not
// hold it), and a turn on it leaves the original without that turn.
func TestThreadsListForkAndName(t *testing.T) {
	ctx := testCtx(t)
	answer := func(s string) scriptedmodel.Response {
		return scriptedmodel.Reply(scriptedmodel.Message("final_answer", s))
	}
	a, h := newAgent(t, scriptedmodel.ByPrompt(map[string][]scriptedmodel.Response{
		"first words": {answer("one")}, "not listed": {answer("two")},
		"on the fork": {answer("three")}, "on the original": {answer("four")},
	}), scriptedmodel.HomeOptions{}, Options{})
	dir := t.TempDir()
	id := newSession(t, a, dir)
	prompt(t, ctx, a, id, "first words")
	hidden := newSession(t, a, dir)
	prompt(t, ctx, a, hidden, "not listed")
	if err := a.NameThread(ctx, id, "the name"); err != nil {
		t.Fatal(err)
	}
	got, err := a.ThreadInfo(ctx, []string{string(id), "01a235b0-0000-7000-8000-000000000000"})
	if err != nil {
		t.Fatal(err)
	}
	if th, ok := got[string(id)]; len(got) != 1 || !ok || th.Name != "the name" || th.Preview != "first words" || th.Cwd != dir || th.Updated.IsZero() {
		t.Fatalf("thread/list of one thread and an unknown id = %+v, want only %s named, with its first words, in %s", got, id, dir)
	}
	fork, err := a.ForkThread(ctx, id, dir)
	if err != nil || fork == id || fork == "" {
		t.Fatalf("fork = %q (%v), want a new thread", fork, err)
	}
	// Another process runs the fork's first turn while this one still
	// runs: the fork is not held here.
	b := agentOn(t, h, Options{})
	prompt(t, ctx, b, fork, "on the fork")
	_ = a.Close()
	if err := b.NameThread(ctx, id, "renamed"); err != nil {
		t.Fatalf("name a thread this process never loaded: %v", err)
	}
	prompt(t, ctx, b, id, "on the original")
	reqs := h.Server.ModelRequests()
	var onFork, onOriginal string
	for _, r := range reqs {
		switch r.UserText {
		case "on the fork":
			onFork = string(r.Body)
		case "on the original":
			onOriginal = string(r.Body)
		}
	}
	if !strings.Contains(onFork, "first words") || strings.Contains(onFork, "not listed") {
		t.Errorf("the fork's request does not carry exactly its original's history:\n%s", onFork)
	}
	if !strings.Contains(onOriginal, "first words") || strings.Contains(onOriginal, "on the fork") {
		t.Errorf("the original's request after the fork's turn:\n%s\nwant its own history without the fork's turn", onOriginal)
	}
	listed, err := b.ThreadInfo(ctx, []string{string(id), string(fork)})
	if err != nil {
		t.Fatal(err)
	}
	if len(listed) != 2 || listed[string(id)].Name != "renamed" || listed[string(fork)].Preview != "first words" {
		t.Errorf("thread/list of the original and its fork = %+v, want both, the original renamed by the other process", listed)
	}
}

func newSession(t *testing.T, a *Agent, dir string) acp.SessionId {
	t.Helper()
	id, err := a.NewSession(testCtx(t), dir)
	if err != nil {
		t.Fatal(err)
	}
	return id
}
