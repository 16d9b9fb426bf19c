package external

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"

	acp "github.com/coder/acp-go-sdk"
	"github.com/wecodex/wecodex/acpbridge"
	"github.com/wecodex/wecodex/acpbridge/internal/bridgetest"
)

// agentRecordings are turns recorded from the real agents on the scripted
// model (a commentary message, a command, an answer), verbatim but for the
// workspace path: testdata/<name>.jsonl.
var agentRecordings = []string{"codex-acp-2.6.0-air", "zed-codex-acp-0.16.0"}

// answerTemplate marks the recorded answer chunk the stream is grown from.
const answerTemplate = `"text":"da "`

// recordedStream grows a recorded turn to n answer chunks, each with distinct
// text, in exactly the wire format the agent sent: the recorded answer chunk
// repeated with its text replaced. It returns the stream, how many
// session/update lines it holds, and the answer the chunks spell.
func recordedStream(tb testing.TB, name string, n int) (stream []byte, updates int, answer string) {
	tb.Helper()
	raw, err := os.ReadFile("testdata/" + name + ".jsonl")
	if err != nil {
		tb.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSpace(string(raw)), "\n")
	var b bytes.Buffer
	var text strings.Builder
	grown := false
	for _, line := range lines {
		line = strings.TrimSuffix(line, "\n") + "\n"
		before, after, ok := strings.Cut(line, answerTemplate)
		if !ok {
			if strings.Contains(line, `"session/update"`) {
				updates++
			}
			b.WriteString(line)
			continue
		}
		if grown {
			continue
		}
		grown = true
		for i := range n {
			t := fmt.Sprintf("d%05d ", i)
			text.WriteString(t)
			q, _ := json.Marshal(t)
			b.WriteString(before)
			b.WriteString(`"text":`)
			b.Write(q)
			b.WriteString(after)
		}
		updates += n
	}
	if !grown {
		tb.Fatalf("%s has no %s chunk to grow", name, answerTemplate)
	}
	return b.Bytes(), updates, text.String()
}

// answerSink counts what the card would get: answer text, thoughts, others.
type answerSink struct {
	bridgetest.Unasked
	mu       sync.Mutex
	keep     bool // keep the answer text, not only its length
	answer   strings.Builder
	bytes    int
	thoughts int
	others   int
}

func (s *answerSink) Update(u acp.SessionUpdate) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil:
		s.bytes += len(u.AgentMessageChunk.Content.Text.Text)
		if s.keep {
			s.answer.WriteString(u.AgentMessageChunk.Content.Text.Text)
		}
	case u.AgentThoughtChunk != nil:
		s.thoughts++
	default:
		s.others++
	}
}

func (s *answerSink) Notice(acpbridge.Notice) {}

// benchRig is an Agent with one live session and no process: the
// stream goes through the same reader and client a process's stdout does.
type benchRig struct {
	a      *Agent
	s      *extSession
	client *agentClient
}

func newBenchRig(tb testing.TB, sessionID acp.SessionId, sink acpbridge.Sink) *benchRig {
	a := &Agent{
		opts:     Options{Command: []string{"recorded-agent"}},
		log:      slog.New(slog.DiscardHandler),
		sessions: map[acp.SessionId]*extSession{},
		byAgent:  map[acp.SessionId]*extSession{},
	}
	s := &extSession{id: sessionID, queue: newOrderedQueue(), agentID: sessionID, gen: 1, sink: sink,
		turn: &extTurn{activity: make(chan struct{}, 1)}}
	a.sessions[sessionID], a.byAgent[sessionID] = s, s
	tb.Cleanup(func() { s.queue.close(); <-s.queue.done })
	return &benchRig{a: a, s: s, client: &agentClient{a: a, gen: 1}}
}

// feed runs stream through an updateReader into the session, as far as the
// sink, and returns what went on to the SDK.
func (r *benchRig) feed(tb testing.TB, stream []byte) []byte {
	ur := newUpdateReader(bytes.NewReader(stream), r.client, r.a.log)
	done := make(chan struct{})
	var rest []byte
	go func() {
		defer close(done)
		rest, _ = io.ReadAll(ur)
	}()
	ur.run(make(chan struct{}))
	<-done
	if err := r.s.queue.flush(tb.Context()); err != nil {
		tb.Fatal(err)
	}
	return rest
}

// BenchmarkExternalRecordedStream replays a recorded turn grown to 20,000
// answer chunks through the external agent's reader and client into a sink,
// for each recorded agent. One op is the whole stream; per-update figures are
// custom metrics (compare acpbridge/codex's BenchmarkTranslateRecordedStream).
func BenchmarkExternalRecordedStream(b *testing.B) {
	for _, name := range agentRecordings {
		b.Run(name, func(b *testing.B) {
			stream, updates, answer := recordedStream(b, name, 20000)
			sink := &answerSink{keep: true}
			r := newBenchRig(b, sessionOf(b, stream), sink)
			r.feed(b, stream) // warm up, and check the whole answer arrived
			if got := sink.answer.String(); !strings.HasSuffix(got, answer) {
				b.Fatalf("answer of %d bytes does not end with the %d streamed", len(got), len(answer))
			}
			sink.keep = false
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			b.ReportAllocs()
			b.SetBytes(int64(len(stream)))
			b.ResetTimer()
			for b.Loop() {
				r.feed(b, stream)
			}
			b.StopTimer()
			runtime.ReadMemStats(&after)
			total := float64(b.N) * float64(updates)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/total, "ns/update")
			b.ReportMetric(float64(after.Mallocs-before.Mallocs)/total, "allocs/update")
		})
	}
}

// sessionOf is the session id of the stream's first update.
func sessionOf(tb testing.TB, stream []byte) acp.SessionId {
	line, _, _ := bytes.Cut(stream, []byte("\n"))
	var m struct {
		Params struct {
			SessionID acp.SessionId `json:"sessionId"`
		} `json:"params"`
	}
	if err := json.Unmarshal(line, &m); err != nil || m.Params.SessionID == "" {
		tb.Fatalf("no session id in %s: %v", line, err)
	}
	return m.Params.SessionID
}
