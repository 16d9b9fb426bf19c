package external

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"
	"github.com/wecodex/wecodex/acpbridge"
	"github.com/wecodex/wecodex/acpbridge/internal/bridgetest"
)

// floodAgentEnv, when set to a number N, turns the test binary into an ACP
// agent (acp-go-sdk's agent side on stdio) whose every prompt answers with N
// agent_message_chunk notifications sent as fast as the SDK writes them.
const floodAgentEnv = "WECODEX_TEST_FLOOD_AGENT"

// loadFIFOEnv, when set too, names a FIFO: the agent advertises loadSession,
// and its session/load opens the FIFO and reads it to EOF before answering,
// so a test holds the load open exactly as long as it wants.
const loadFIFOEnv = "WECODEX_TEST_LOAD_FIFO"

// stubbornAgentEnv, when set too, makes that agent ignore both EOF on its
// stdin and SIGTERM, as an agent that never exits on its own would.
const stubbornAgentEnv = "WECODEX_TEST_STUBBORN_AGENT"

func TestMain(m *testing.M) {
	if path := os.Getenv(trickleEnv); path != "" {
		runTrickle(path)
		os.Exit(0)
	}
	if os.Getenv(echoAgentEnv) != "" {
		runEchoAgent()
		os.Exit(0)
	}
	if v := os.Getenv(floodAgentEnv); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			fmt.Fprintln(os.Stderr, "flood agent:", err)
			os.Exit(2)
		}
		runFloodAgent(n)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func floodChunk(i int) string { return fmt.Sprintf("c%06d ", i) }

func runFloodAgent(n int) {
	stubborn := os.Getenv(stubbornAgentEnv) != ""
	if stubborn {
		signal.Ignore(syscall.SIGTERM)
	}
	a := &floodAgent{n: n}
	conn := acp.NewAgentSideConnection(a, os.Stdout, os.Stdin)
	a.conn = conn
	<-conn.Done()
	if stubborn {
		select {}
	}
}

type floodAgent struct {
	n    int
	conn *acp.AgentSideConnection
}

func (a *floodAgent) Initialize(context.Context, acp.InitializeRequest) (acp.InitializeResponse, error) {
	return acp.InitializeResponse{
		ProtocolVersion:   acp.ProtocolVersionNumber,
		AgentInfo:         &acp.Implementation{Name: "flood", Version: "0"},
		AuthMethods:       []acp.AuthMethod{},
		AgentCapabilities: acp.AgentCapabilities{LoadSession: os.Getenv(loadFIFOEnv) != ""},
	}, nil
}

func (a *floodAgent) LoadSession(context.Context, acp.LoadSessionRequest) (acp.LoadSessionResponse, error) {
	f, err := os.Open(os.Getenv(loadFIFOEnv)) // blocks until the test opens it to write
	if err != nil {
		return acp.LoadSessionResponse{}, err
	}
	defer f.Close()
	_, err = io.Copy(io.Discard, f)
	return acp.LoadSessionResponse{}, err
}

func (a *floodAgent) Authenticate(context.Context, acp.AuthenticateRequest) (acp.AuthenticateResponse, error) {
	return acp.AuthenticateResponse{}, nil
}

func (a *floodAgent) NewSession(context.Context, acp.NewSessionRequest) (acp.NewSessionResponse, error) {
	return acp.NewSessionResponse{SessionId: "flood-1"}, nil
}

func (a *floodAgent) Prompt(ctx context.Context, req acp.PromptRequest) (acp.PromptResponse, error) {
	id := "msg-1"
	for i := range a.n {
		err := a.conn.SessionUpdate(ctx, acp.SessionNotification{SessionId: req.SessionId, Update: acp.SessionUpdate{
			AgentMessageChunk: &acp.SessionUpdateAgentMessageChunk{
				SessionUpdate: "agent_message_chunk", Content: acp.TextBlock(floodChunk(i)), MessageId: &id,
			},
		}})
		if err != nil {
			return acp.PromptResponse{}, err
		}
	}
	return acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
}

func (a *floodAgent) Cancel(context.Context, acp.CancelNotification) error { return nil }

func (a *floodAgent) SetSessionMode(context.Context, acp.SetSessionModeRequest) (acp.SetSessionModeResponse, error) {
	return acp.SetSessionModeResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionSetMode)
}

func (a *floodAgent) ListSessions(context.Context, acp.ListSessionsRequest) (acp.ListSessionsResponse, error) {
	return acp.ListSessionsResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionList)
}

func (a *floodAgent) ResumeSession(context.Context, acp.ResumeSessionRequest) (acp.ResumeSessionResponse, error) {
	return acp.ResumeSessionResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionResume)
}

func (a *floodAgent) CloseSession(context.Context, acp.CloseSessionRequest) (acp.CloseSessionResponse, error) {
	return acp.CloseSessionResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionClose)
}

func (a *floodAgent) SetSessionConfigOption(context.Context, acp.SetSessionConfigOptionRequest) (acp.SetSessionConfigOptionResponse, error) {
	return acp.SetSessionConfigOptionResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionSetConfigOption)
}

// chunkSink keeps every chunk's text, kind and id as delivered.
type chunkSink struct {
	bridgetest.Unasked
	mu      sync.Mutex
	texts   []string
	bad     []string // anything that is not a msg-1 message chunk
	onFirst func()
}

func (s *chunkSink) Update(u acp.SessionUpdate) {
	s.mu.Lock()
	first := len(s.texts) == 0 && len(s.bad) == 0
	if c := u.AgentMessageChunk; c != nil && c.Content.Text != nil && c.MessageId != nil && *c.MessageId == "msg-1" {
		s.texts = append(s.texts, c.Content.Text.Text)
	} else {
		kind, _ := acpbridge.UpdateKind(u)
		s.bad = append(s.bad, kind)
	}
	s.mu.Unlock()
	if first && s.onFirst != nil {
		s.onFirst()
	}
}

func (s *chunkSink) Notice(n acpbridge.Notice) {
	s.mu.Lock()
	s.bad = append(s.bad, "notice: "+n.Text)
	s.mu.Unlock()
}

// tWriter logs warnings (the SDK's "failed to queue notification" among
// them) to the test.
// It goes quiet once the test has ended.
type tWriter struct {
	t    *testing.T
	mu   *sync.Mutex
	done *bool
}

func newTWriter(t *testing.T) tWriter {
	w := tWriter{t: t, mu: &sync.Mutex{}, done: new(bool)}
	t.Cleanup(func() {
		w.mu.Lock()
		*w.done = true
		w.mu.Unlock()
	})
	return w
}

func (w tWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !*w.done {
		w.t.Log(string(b))
	}
	return len(b), nil
}

// TestExternalAgentFloodWhileHandlerStalls floods the client with 100,000
// session/update notifications while the goroutine that handles them is
// stalled (here: on the agent's lock, as a starved goroutine would be). Every
// notification must arrive, in order, exactly once; acp-go-sdk's own bounded
// notification queue closes the connection when it overflows, so nothing of
// ours may let it fill.
func TestExternalAgentFloodWhileHandlerStalls(t *testing.T) {
	const n = 100_000
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	a, err := New(ctx, Options{
		Command: []string{exe, "-test.run=^$"},
		Env:     map[string]string{floodAgentEnv: strconv.Itoa(n)},
		Log:     slog.New(slog.NewTextHandler(newTWriter(t), &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	if err != nil {
		t.Fatalf("start flood agent: %v", err)
	}
	defer a.Close()
	id, err := a.NewSession(ctx, t.TempDir())
	if err != nil {
		t.Fatalf("new session: %v", err)
	}

	sink := &chunkSink{}
	// At the first chunk, hold the agent's lock, which the notification
	// handler needs, while the agent keeps writing: long enough for far more
	// than the SDK's 1024 queued notifications to arrive, or until the
	// connection gives up.
	sink.onFirst = func() {
		a.mu.Lock()
		p := a.proc
		t := time.NewTimer(time.Second)
		select {
		case <-p.conn.Done():
		case <-t.C:
		}
		t.Stop()
		a.mu.Unlock()
	}
	reason, err := a.Prompt(ctx, id, acpbridge.TextPrompt("flood"), sink)
	if err != nil {
		t.Fatalf("prompt: %v", err)
	}
	if reason != acp.StopReasonEndTurn {
		t.Errorf("stop reason %q, want end_turn", reason)
	}
	sink.mu.Lock()
	defer sink.mu.Unlock()
	if len(sink.bad) > 0 {
		t.Errorf("unexpected updates or notices: %q", sink.bad[:min(len(sink.bad), 5)])
	}
	if len(sink.texts) != n {
		t.Errorf("got %d chunks, want %d", len(sink.texts), n)
	}
	for i, got := range sink.texts {
		if want := floodChunk(i); got != want {
			t.Fatalf("chunk %d is %q, want %q (lost, repeated or reordered)", i, got, want)
		}
	}
}

// TestExternalAgentCloseStopsStubbornAgent: an agent that ignores EOF and
// SIGTERM is gone once Close returns.
func TestExternalAgentCloseStopsStubbornAgent(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	a, err := New(ctx, Options{
		Command: []string{exe, "-test.run=^$"},
		Env:     map[string]string{floodAgentEnv: "1", stubbornAgentEnv: "1"},
		Log:     slog.New(slog.NewTextHandler(newTWriter(t), &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	if err != nil {
		t.Fatalf("start agent: %v", err)
	}
	pid := a.PID()
	if pid == 0 {
		t.Fatal("no agent process")
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	// Close waited for the process to exit and reaped it: the pid is free.
	if err := syscall.Kill(pid, 0); err != syscall.ESRCH {
		t.Errorf("agent %d after Close: kill(0) = %v, want ESRCH", pid, err)
	}
}
