package external

import (
	"bufio"
	"io"
	"testing"

	acp "github.com/coder/acp-go-sdk"
	"github.com/wecodex/wecodex/acpbridge"
	"github.com/wecodex/wecodex/acpbridge/internal/bridgetest"
)

// signalSink passes each answer chunk's text on a channel.
type signalSink struct {
	bridgetest.Unasked
	texts chan string
}

func (s signalSink) Update(u acp.SessionUpdate) {
	if c := u.AgentMessageChunk; c != nil && c.Content.Text != nil {
		s.texts <- c.Content.Text.Text
	}
}

func (s signalSink) Notice(acpbridge.Notice) {}

func chunkLine(text string) string {
	return `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"` + text + `"}}}}` + "\n"
}

// TestGatheredUpdatesReachSink: the reader gathers a read's updates and hands
// them on as one batch; they must not wait for more input. An agent that
// falls silent after some chunks (a command running) still shows them, and a
// response the SDK reads comes after every update before it, which a flush
// of the session's queue then delivers.
func TestGatheredUpdatesReachSink(t *testing.T) {
	sink := signalSink{texts: make(chan string, 16)}
	r := newBenchRig(t, "s1", sink)
	agentR, agentW := io.Pipe()
	ur := newUpdateReader(agentR, r.client, r.a.log)
	go ur.run(make(chan struct{}))
	sdk := bufio.NewReader(ur)

	// One write of two chunks, then silence: the pipe stays open.
	go agentW.Write([]byte(chunkLine("a") + chunkLine("b")))
	for _, want := range []string{"a", "b"} {
		if got := <-sink.texts; got != want {
			t.Fatalf("chunk %q, want %q", got, want)
		}
	}

	// Chunks and a response in one write: when the SDK has the response, the
	// chunks are queued ahead of anything pushed after it.
	response := `{"jsonrpc":"2.0","result":{"stopReason":"end_turn"},"id":3}` + "\n"
	go agentW.Write([]byte(chunkLine("c") + chunkLine("d") + response))
	line, err := sdk.ReadString('\n')
	if err != nil || line != response {
		t.Fatalf("SDK read %q, %v; want the response", line, err)
	}
	if err := r.s.queue.flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	close(sink.texts) // nothing can arrive any more: the queue is flushed and the agent silent
	var got []string
	for text := range sink.texts {
		got = append(got, text)
	}
	if want := []string{"c", "d"}; len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("after the response: %q, want %q", got, want)
	}
	agentW.Close()
}
