package bot_test

import (
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/wecodex/wecodex/acpbridge/codex"
	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/cards"
	"github.com/wecodex/wecodex/internal/codextest"
	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/testenv"
	"github.com/wecodex/wecodex/store"
)

// appServerGroups are the process groups of this test's codex app-servers:
// children of this process whose command is codex.
func appServerGroups(t *testing.T) []int {
	t.Helper()
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var groups []int
	for _, p := range stats {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...
		s := string(b)
		open, close := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || close < open {
			continue
		}
		f := strings.Fields(s[close+1:])
		if len(f) < 3 || !strings.HasPrefix(s[open+1:close], "codex") {
			continue
		}
		if ppid, _ := strconv.Atoi(f[1]); ppid == os.Getpid() {
			pgrp, _ := strconv.Atoi(f[2])
			groups = append(groups, pgrp)
		}
	}
	return groups
}

// signalAppServer sends sig to the one app-server this test runs.
func signalAppServer(t *testing.T, sig syscall.Signal) {
	t.Helper()
	g := appServerGroups(t)
	if len(g) != 1 {
		t.Fatalf("%d app-servers %v, want 1", len(g), g)
	}
	if err := syscall.Kill(-g[0], sig); err != nil {
		t.Fatal(err)
	}
}

// failureRig runs one message through an engine on the real Codex and
// returns the card's final frame and the session the turn ran in.
type failureRig struct {
	*mediaRig
	opts codex.Options
}

func newFailureRig(t *testing.T, script sm.Script, opts codex.Options) *failureRig {
	t.Helper()
	r := &failureRig{mediaRig: newMediaRig(t, script), opts: opts}
	// The rig's agent, with this test's options.
	_ = r.agent.Close()
	opts.Bin, opts.Env, opts.Phases, opts.Logger = r.h.Bin, r.h.CodexEnv(), r.st, quietLog()
	a := codex.New(opts)
	t.Cleanup(func() { _ = a.Close() })
	r.agent = a
	return r
}

// The last frame of every failure a card can show is one sentence for the
// user, and no card shows a path under the state directory, the workspace
// root or CODEX_HOME, nor the session's thread id: those go to the log.
func TestFailedCardsSayOneSentence(t *testing.T) {
	const (
		crashed     = "❌ Failed: The agent stopped unexpectedly and was restarted; send the message again."
		hung        = "❌ Failed: The agent stopped answering and was restarted; send the message again."
		startFailed = "❌ Failed: The agent could not start a session for this conversation; send the message again, and if it fails again an admin reads the bot's log."
		login       = "❌ Failed: The agent is not logged in to its model provider: an admin runs `wecodex codex-login` on the bot's server (add `--with-api-key` to give a key on stdin) or configures a model provider with an API key in agent.codex.config."
		unreachable = "❌ Failed: The agent cannot reach its model provider: an admin checks the bot server's network and proxy (HTTPS_PROXY in wecodex's environment) and the provider's base_url in agent.codex.config."
	)
	held := func(g *sm.Gate) sm.Script {
		return sm.Sequence(sm.Reply(sm.Message(sm.PhaseCommentary, "Working on it."), sm.Message(sm.PhaseFinalAnswer, "never")).WithHold(2, g))
	}
	tests := []struct {
		name  string
		setup func(t *testing.T) (*failureRig, func(t *testing.T))
		// root makes the workspace root; empty uses the rig's.
		root func(t *testing.T, r *failureRig) string
		want string
	}{
		{name: "start session", want: startFailed,
			setup: func(t *testing.T) (*failureRig, func(*testing.T)) {
				return newFailureRig(t, sm.Sequence(), codex.Options{}), nil
			},
			root: func(t *testing.T, r *failureRig) string {
				file := filepath.Join(r.root, "not-a-directory")
				if err := os.WriteFile(file, nil, 0o600); err != nil {
					t.Fatal(err)
				}
				return file
			}},
		{name: "crashed", want: crashed,
			setup: func(t *testing.T) (*failureRig, func(*testing.T)) {
				g := sm.NewGate()
				t.Cleanup(g.Release)
				r := newFailureRig(t, held(g), codex.Options{FailInterrupted: true})
				r.h.AllowServerErrors()
				return r, func(t *testing.T) { <-g.Reached(); signalAppServer(t, syscall.SIGKILL) }
			}},
		{name: "hung", want: hung,
			setup: func(t *testing.T) (*failureRig, func(*testing.T)) {
				g := sm.NewGate()
				t.Cleanup(g.Release)
				r := newFailureRig(t, held(g), codex.Options{FailInterrupted: true, WatchdogInterval: 200 * time.Millisecond})
				r.h.AllowServerErrors()
				return r, func(t *testing.T) { <-g.Reached(); signalAppServer(t, syscall.SIGSTOP) }
			}},
		{name: "not logged in", want: login,
			setup: func(t *testing.T) (*failureRig, func(*testing.T)) {
				refuse := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(http.StatusUnauthorized)
					_, _ = w.Write([]byte(`{"error":{"message":"Incorrect API key provided.","code":"invalid_api_key"}}`))
				}))
				t.Cleanup(refuse.Close)
				r := newFailureRig(t, sm.Sequence(), codex.Options{Config: map[string]string{"model_providers.scripted.stream_max_retries": "1"}})
				providerAt(t, r.h, refuse.URL+"/v1")
				return r, nil
			}},
		{name: "provider unreachable", want: unreachable,
			setup: func(t *testing.T) (*failureRig, func(*testing.T)) {
				r := newFailureRig(t, sm.Sequence(), codex.Options{MaxReconnects: 1})
				providerAt(t, r.h, closedPort(t))
				return r, nil
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, fault := tt.setup(t)
			root := r.root
			if tt.root != nil {
				root = tt.root(t, r)
			}
			e := r.engine(t, "r1", root)
			run(t, e)
			if _, err := e.Receive(t.Context(), alice("m1", "do the work")); err != nil {
				t.Fatal(err)
			}
			if fault != nil {
				fault(t)
			}
			events := r.chat.waitFor(t, "finish")
			final := events[len(events)-2]
			if !strings.HasPrefix(final, "final ") || !strings.Contains(final, "\n"+tt.want+" | failed: ") &&
				!strings.HasPrefix(final, "final "+tt.want+" | failed: ") {
				t.Fatalf("final frame %q, want its status line %q", final, tt.want)
			}
			t.Logf("%s", final)
			sid, _, _ := r.st.Conversation(t.Context(), "single:alice")
			for _, secret := range []string{r.root, root, r.h.Home, filepath.Dir(r.h.Home)} {
				if strings.Contains(final, secret) {
					t.Errorf("the card shows the path %q: %q", secret, final)
				}
			}
			if sid != "" && strings.Contains(final, sid) {
				t.Errorf("the card shows the thread id %s: %q", sid, final)
			}
		})
	}
}

// providerAt points the harness's Codex at baseURL instead of the scripted
// model.
func providerAt(t *testing.T, h *codextest.Harness, baseURL string) {
	t.Helper()
	if err := sm.WriteCodexHome(h.Home, baseURL, sm.HomeOptions{}); err != nil {
		t.Fatal(err)
	}
}

// closedPort is a loopback URL nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr + "/v1"
}

// progressShows returns a channel closed once a card rendered on chat holds
// text in its progress section. The first ACP update of a turn need not be
// the model's (and on a loaded machine it comes well before the model's
// stream): killing Codex then would interrupt a turn whose model request was
// never served, and its re-sent request would take the held reply.
func progressShows(chat *memChat, text string) <-chan struct{} {
	seen := make(chan struct{})
	var once sync.Once
	chat.rendered = func(c *cards.Card) {
		for _, it := range c.Progress() {
			if strings.Contains(it.Text, text) {
				once.Do(func() { close(seen) })
			}
		}
	}
	return seen
}

// Codex killed mid-turn: the card keeps its progress, gets one line saying
// Codex restarted and the work continues, and the continuation's answer
// comes in the same card.
func TestCardCarriesOnAfterCodexDies(t *testing.T) {
	g := sm.NewGate()
	t.Cleanup(g.Release)
	r := newFailureRig(t, sm.Sequence(
		sm.Reply(sm.MessageDeltas(sm.PhaseCommentary, "Working on it."), sm.Message(sm.PhaseFinalAnswer, "never")).WithHold(1, g),
		sm.Reply(sm.Message(sm.PhaseCommentary, "Checking what is done."), sm.Message(sm.PhaseFinalAnswer, "All done.")),
	), codex.Options{})
	r.h.AllowServerErrors()
	shown := progressShows(r.chat.memChat, "Working on it.")
	e, err := bot.New(bot.Config{
		Replica: "r1", WorkspaceRoot: r.root, UpdateInterval: time.Millisecond,
		LeaseTTL: store.LeaseTTL, HeartbeatTTL: store.ReplicaTTL,
		Access: bot.Access{AllowUsers: []string{"alice"}}, Logger: quietLog(),
	}, testenv.EngineStore(r.st), r.agent, r.chat)
	if err != nil {
		t.Fatal(err)
	}
	run(t, e)
	if _, err := e.Receive(t.Context(), alice("m1", "do the work")); err != nil {
		t.Fatal(err)
	}
	<-g.Reached() // the model's first reply is served and held
	<-shown       // and its commentary is on the card
	signalAppServer(t, syscall.SIGKILL)
	events := r.chat.waitFor(t, "finish")
	want := "final <think>\nWorking on it.\n\n⚠️ Codex stopped unexpectedly and was restarted; the work continues.\n\nChecking what is done.\n</think>\n\nAll done. | done"
	if got := events[len(events)-2]; got != want {
		t.Fatalf("final frame\n%q\nwant\n%q", got, want)
	}
}
