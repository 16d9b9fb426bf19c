package codex

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge"
)

// countingPhases is a PhaseStore standing in for Redis in the benchmark, only
// to count how often the bridge reaches the shared store.
type countingPhases struct {
	sets, gets, forgets atomic.Int64
}

func (s *countingPhases) SetPhase(context.Context, string, string, string) error {
	s.sets.Add(1)
	return nil
}

func (s *countingPhases) Phase(context.Context, string, string) (string, bool, error) {
	s.gets.Add(1)
	return "", false, nil
}

func (s *countingPhases) ForgetPhase(context.Context, string, string) error {
	s.forgets.Add(1)
	return nil
}

// countingSink discards updates, counting the answer and progress chunks so
// the benchmark can check every delta arrived, routed right.
type countingSink struct{ thoughts, messages int }

func (s *countingSink) Update(u acp.SessionUpdate) {
	switch {
	case u.AgentThoughtChunk != nil:
		s.thoughts++
	case u.AgentMessageChunk != nil:
		s.messages++
	}
}
func (s *countingSink) Notice(acpbridge.Notice) {}
func (s *countingSink) RequestPermission(context.Context, acp.RequestPermissionRequest) acp.RequestPermissionResponse {
	return acpbridge.Cancelled()
}

// recording builds an app-server stdout of one turn, line for line in the
// shape Codex 0.171.0 writes (captured from a real run): commentary
// messages, then a final answer, each streamed word by word, commentary
// deltas plus answer deltas adding up to deltas.
func recording(deltas int) (stream []byte, thoughts, messages int) {
	const thread, turnID = "01a22bac-465f-7622-8ea4-0b4dad5a2b1a", "01a22bac-4d67-7be3-b41f-d011ba0913bc"
	var b bytes.Buffer
	item := func(method, id, phase, text string) {
		fmt.Fprintf(&b, `{"method":"%s","params":{"item":{"type":"agentMessage","moderation":null,"id":"%s","text":"%s","phase":"%s","memoryCitation":null,"delivery":null,"questions":null,"startedAtMs":1796029042278,"completedAtMs":null},"threadId":"%s","turnId":"%s","startedAtMs":1796029042278},"emittedAtMs":1796029042279}`+"\n",
			method, id, text, phase, thread, turnID)
	}
	words := []string{" the", " workspace", " has", " files", ";", " I", " will", " read", " them", ` \"now\"\n`}
	msg := 0
	for emitted := 0; emitted < deltas; msg++ {
		phase := "commentary"
		n := 500
		if emitted+n >= deltas-deltas/2 && emitted < deltas/2 {
			n = deltas/2 - emitted
		}
		if emitted >= deltas/2 {
			phase, n = "final_answer", deltas-emitted
		}
		id := fmt.Sprintf("msg_0a1b2c3d4e5f%04d", msg)
		item("item/started", id, phase, "")
		for i := range n {
			fmt.Fprintf(&b, `{"method":"item/agentMessage/delta","params":{"threadId":"%s","turnId":"%s","itemId":"%s","delta":"%s"},"emittedAtMs":1796029042279}`+"\n",
				thread, turnID, id, words[i%len(words)])
		}
		item("item/completed", id, phase, "(full text)")
		if phase == "commentary" {
			thoughts += n
		} else {
			messages += n
		}
		emitted += n
	}
	return b.Bytes(), thoughts, messages
}

// BenchmarkTranslateRecordedStream replays a recorded stream of 20,000
// agent-message deltas through the line reader, the dispatcher and the
// translator into a discarding sink. One op is the whole stream; the
// per-delta figures are reported as custom metrics.
func BenchmarkTranslateRecordedStream(b *testing.B) {
	const deltas = 20000
	stream, wantThoughts, wantMessages := recording(deltas)
	phases := &countingPhases{}
	r := newLineRig(b, Options{Phases: phases})
	th := r.a.threadFor("01a22bac-465f-7622-8ea4-0b4dad5a2b1a")
	sink := &countingSink{}
	ts := sentTurn(r.a.ctx, sink)
	th.turn.Store(ts)

	run := func() {
		lr := lineReader{r: bufio.NewReaderSize(bytes.NewReader(stream), 64<<10)}
		for {
			line, err := lr.next()
			if err != nil {
				return
			}
			r.c.dispatch(line)
		}
	}
	run() // warm up maps and buffers
	if sink.thoughts != wantThoughts || sink.messages != wantMessages {
		b.Fatalf("routed %d thoughts and %d messages, want %d and %d", sink.thoughts, sink.messages, wantThoughts, wantMessages)
	}
	phases.gets.Store(0)
	phases.sets.Store(0)

	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	b.ReportAllocs()
	b.SetBytes(int64(len(stream)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		run()
	}
	b.StopTimer()
	runtime.ReadMemStats(&after)
	total := float64(b.N) * deltas
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/total, "ns/delta")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/total, "allocs/delta")
	b.ReportMetric(float64(phases.gets.Load())/total, "store-reads/delta")
	b.ReportMetric(float64(phases.sets.Load())/float64(b.N), "store-writes/stream")
}

// BenchmarkAgentTextUpdate is the floor: building the ACP update itself with
// the shared phase rule, which every delta must pay.
func BenchmarkAgentTextUpdate(b *testing.B) {
	b.ReportAllocs()
	var sink acpbridge.Sink = &countingSink{}
	delta := []byte(" workspace")
	for b.Loop() {
		sink.Update(acpbridge.AgentText(acpbridge.PhaseCommentary, "msg_0a1b2c3d4e5f0001", string(delta)))
	}
}
