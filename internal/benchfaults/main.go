// Command benchfaults measures what a hung and a dead Codex cost users: 8
// conversations on one replica's app-server (the real Codex, driven by the
// scripted model), the app-server SIGSTOPped once while half of them stream
// and the other half start their first conversation, then SIGKILLed once
// while all of them stream. It reports, per fault, the turns completed, the
// turns continued after the restart, the turns lost (failed) and the turns
// answered or asked twice.
//
// Run it with `make bench-faults`.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge"
	"github.com/wecodex/wecodex/acpbridge/codex"
	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
)

// continuationKey is in the bridge's continuation prompt.
const continuationKey = "Continue the unfinished work"

func main() {
	bin := flag.String("codex", ".tools/codex/node_modules/.bin/codex", "the codex executable")
	n := flag.Int("conversations", 8, "conversations on the one app-server (even)")
	deltas := flag.Int("deltas", 30, "deltas in each answer")
	pace := flag.Duration("delta-delay", 100*time.Millisecond, "pause between an answer's deltas, so the faults land mid-stream")
	flag.Parse()
	if err := run(*bin, *n, *deltas, *pace); err != nil {
		fmt.Fprintln(os.Stderr, "benchfaults:", err)
		os.Exit(1)
	}
}

// turn is one prompt's outcome as its card would see it.
type turn struct {
	prompt string
	stop   acp.StopReason
	err    error
	sink   *cardSink
}

// cardSink keeps what a card would show: the answer text and the notices.
type cardSink struct {
	mu      sync.Mutex
	answer  strings.Builder
	notices []string
	spoke   chan struct{}
	once    sync.Once
}

func newCardSink() *cardSink { return &cardSink{spoke: make(chan struct{})} }

func (s *cardSink) Update(u acp.SessionUpdate) {
	if m := u.AgentMessageChunk; m != nil && m.Content.Text != nil {
		s.mu.Lock()
		s.answer.WriteString(m.Content.Text.Text)
		s.mu.Unlock()
		s.once.Do(func() { close(s.spoke) })
	}
}

func (s *cardSink) Notice(n acpbridge.Notice) {
	s.mu.Lock()
	s.notices = append(s.notices, n.Text)
	s.mu.Unlock()
}

// RequestPermission declines: the scripted answers ask for none.
func (s *cardSink) RequestPermission(context.Context, acp.RequestPermissionRequest) acp.RequestPermissionResponse {
	return acpbridge.Cancelled()
}

func (s *cardSink) continued() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, n := range s.notices {
		if strings.Contains(n, "the work continues") {
			return true
		}
	}
	return false
}

func answerTo(prompt string) string { return "Answer to " + prompt + "." }

const continuedAnswer = "Continued and finished."

func run(bin string, n, deltas int, pace time.Duration) error {
	tmp, err := os.MkdirTemp("", "benchfaults-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	home, shellHome, ws := filepath.Join(tmp, "codex-home"), filepath.Join(tmp, "home"), filepath.Join(tmp, "ws")
	for _, d := range []string{home, shellHome, ws} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return err
		}
	}
	server := sm.New(sm.ScriptFunc(func(req *sm.Request) (sm.Response, error) {
		if strings.Contains(req.UserText, continuationKey) {
			return sm.Reply(sm.Message(sm.PhaseFinalAnswer, continuedAnswer)), nil
		}
		words := make([]string, deltas)
		for i := range words {
			words[i] = "w "
		}
		return sm.Reply(sm.MessageDeltas(sm.PhaseFinalAnswer, append(words, answerTo(req.UserText))...)).WithDelay(pace), nil
	}))
	url, err := server.Start()
	if err != nil {
		return err
	}
	defer server.Close()
	if err := sm.WriteCodexHome(home, url, sm.HomeOptions{}); err != nil {
		return err
	}
	var restarts struct {
		sync.Mutex
		n int
	}
	agent := codex.New(codex.Options{
		Bin: bin, Env: append(sm.Env(home), "HOME="+shellHome),
		Logger:    slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError})),
		OnRestart: func() { restarts.Lock(); restarts.n++; restarts.Unlock() },
	})
	defer agent.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()

	sessions := make([]acp.SessionId, n)
	prompt := func(i int, text string, sink *cardSink, out *turn) {
		out.prompt, out.sink = text, sink
		if sessions[i] == "" {
			id, err := agent.NewSession(ctx, ws)
			if err != nil {
				out.err = fmt.Errorf("start a session: %w", err)
				return
			}
			sessions[i] = id
		}
		out.stop, out.err = agent.Prompt(ctx, sessions[i], acpbridge.TextPrompt(text), sink)
	}

	fmt.Printf("benchfaults: %d conversations on one Codex app-server, %d deltas per answer %v apart; watchdog at its defaults\n\n", n, deltas, pace)
	fmt.Printf("%-8s %5s %9s %9s %4s %10s %9s\n", "fault", "turns", "completed", "continued", "lost", "duplicated", "wall")

	// SIGSTOP: half the conversations stream; then the server is frozen
	// and the other half start their first conversation on it.
	half := n / 2
	turns := make([]turn, n)
	start := time.Now()
	var wg sync.WaitGroup
	sinks := make([]*cardSink, n)
	for i := range half {
		sinks[i] = newCardSink()
		wg.Add(1)
		go func() { defer wg.Done(); prompt(i, fmt.Sprintf("job c%d round 1", i+1), sinks[i], &turns[i]) }()
	}
	if err := waitSpoke(ctx, sinks[:half]); err != nil {
		return err
	}
	group, err := appServerGroup()
	if err != nil {
		return err
	}
	if err := syscall.Kill(-group, syscall.SIGSTOP); err != nil {
		return err
	}
	for i := half; i < n; i++ {
		sinks[i] = newCardSink()
		wg.Add(1)
		go func() { defer wg.Done(); prompt(i, fmt.Sprintf("job c%d round 1", i+1), sinks[i], &turns[i]) }()
	}
	wg.Wait()
	_ = syscall.Kill(-group, syscall.SIGCONT) // gone already: must answer nothing
	report("SIGSTOP", turns, server.ModelRequests(), time.Since(start))
	seen := len(server.ModelRequests())

	// SIGKILL: every conversation streams its second turn.
	turns2 := make([]turn, n)
	start = time.Now()
	for i := range n {
		sinks[i] = newCardSink()
		wg.Add(1)
		go func() { defer wg.Done(); prompt(i, fmt.Sprintf("job c%d round 2", i+1), sinks[i], &turns2[i]) }()
	}
	if err := waitSpoke(ctx, sinks); err != nil {
		return err
	}
	if group, err = appServerGroup(); err != nil {
		return err
	}
	if err := syscall.Kill(-group, syscall.SIGKILL); err != nil {
		return err
	}
	wg.Wait()
	report("SIGKILL", turns2, server.ModelRequests()[seen:], time.Since(start))
	restarts.Lock()
	fmt.Printf("\napp-server restarts: %d; model requests: %d\n", restarts.n, len(server.ModelRequests()))
	restarts.Unlock()
	return nil
}

// waitSpoke waits until every sink has shown answer text.
func waitSpoke(ctx context.Context, sinks []*cardSink) error {
	for _, s := range sinks {
		select {
		case <-s.spoke:
		case <-ctx.Done():
			return errors.New("the answers never began streaming")
		}
	}
	return nil
}

// report prints one fault's line. A turn is completed when it ended on its
// own with its whole answer (or, continued, the continuation's); lost when
// it failed; duplicated when the model was asked its prompt more than once
// or its card got its answer twice.
//
// reqs are the model requests of this fault's turns.
func report(fault string, turns []turn, reqs []sm.Request, wall time.Duration) {
	asked := map[string]int{}
	continuations := 0
	for _, r := range reqs {
		if strings.Contains(r.UserText, continuationKey) {
			continuations++
			continue
		}
		asked[r.UserText]++
	}
	var completed, continued, lost, duplicated int
	for _, t := range turns {
		answer := t.sink.answerText()
		want := answerTo(t.prompt)
		if t.sink.continued() {
			continued++
			want = continuedAnswer
		}
		switch {
		case t.err != nil || t.stop != acp.StopReasonEndTurn:
			lost++
			fmt.Fprintf(os.Stderr, "  lost %q: %v\n", t.prompt, t.err)
		case strings.HasSuffix(answer, want):
			completed++
		default:
			lost++
			fmt.Fprintf(os.Stderr, "  %q ended without its answer: %q\n", t.prompt, answer)
		}
		if asked[t.prompt] > 1 || strings.Count(answer, want) > 1 {
			duplicated++
		}
	}
	if continuations > continued {
		duplicated += continuations - continued // a turn continued twice
	}
	fmt.Printf("%-8s %5d %9d %9d %4d %10d %9s\n", fault, len(turns), completed, continued, lost, duplicated, wall.Round(100*time.Millisecond))
}

func (s *cardSink) answerText() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.answer.String()
}

// appServerGroup is the process group of this process's one codex
// app-server child.
func appServerGroup() (int, error) {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var groups []int
	for _, p := range stats {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		s := string(b)
		open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || end < open || !strings.HasPrefix(s[open+1:end], "codex") {
			continue
		}
		var state string
		var ppid, pgrp int
		if _, err := fmt.Sscan(s[end+1:], &state, &ppid, &pgrp); err != nil || ppid != os.Getpid() {
			continue
		}
		groups = append(groups, pgrp)
	}
	if len(groups) != 1 {
		return 0, fmt.Errorf("%d codex app-servers run here (%v), want 1", len(groups), groups)
	}
	return groups[0], nil
}
