package main

import (
	"context"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wecodex/wecodex/internal/codextest"
	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
)

// The yardstick's client gets the whole answer from the real native
// app-server, every delta once and in order, and nothing but the answer:
// the scripted turn also streams a reasoning summary, which it leaves out.
func TestBareClientKeepsOnlyTheAnswer(t *testing.T) {
	answer, deltas := scriptedAnswer(50)
	h := codextest.Start(t, sm.ScriptFunc(func(*sm.Request) (sm.Response, error) {
		return sm.Reply(sm.Reasoning("Thinking it over."), sm.MessageDeltas(sm.PhaseFinalAnswer, deltas...)), nil
	}))
	env := map[string]string{}
	for _, kv := range h.CodexEnv() {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// -bare-config's settings reach the app-server as -c arguments (one
	// that changes nothing the turn shows).
	app, err := startBare(ctx, h.Bin, configArgs(`history.persistence="none"`), env)
	if err != nil {
		t.Fatal(err)
	}
	defer app.close()
	if exe, err := os.Readlink("/proc/" + strconv.Itoa(app.pid()) + "/exe"); err != nil || strings.HasSuffix(exe, "node") {
		t.Errorf("the bare app-server runs %q (%v), want the native codex binary", exe, err)
	}
	cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(app.pid()) + "/cmdline")
	if args := strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00"); err != nil || !slices.Equal(args[1:], []string{"app-server", "-c", `history.persistence="none"`}) {
		t.Errorf("the bare app-server's arguments are %q (%v), want app-server -c history.persistence=\"none\"", args, err)
	}
	got, err := app.turn(ctx, h.Workspace, "Write the long answer.")
	if err != nil {
		t.Fatal(err)
	}
	if got != answer {
		t.Fatalf("answer %q, want %q", got, answer)
	}
}

// A child sharing its parent's memory is counted once; distinct processes
// each once.
func TestTreeCountsEachAddressSpaceOnce(t *testing.T) {
	self := os.Getpid()
	if got := distinctVM([]int{self, self}); len(got) != 1 || got[0] != self {
		t.Fatalf("distinctVM(self, self) = %v, want [%d]", got, self)
	}
	if got := distinctVM([]int{self, 1}); len(got) != 2 {
		t.Fatalf("distinctVM(self, init) = %v, want both", got)
	}
	m := smapsRollup(self)
	if m.rss <= 0 || m.pss <= 0 || m.pss > m.rss || m.uss > m.rss || m.anon > m.rss {
		t.Fatalf("smaps_rollup of this process: %+v, want 0 < pss <= rss and uss, anon <= rss", m)
	}
}
