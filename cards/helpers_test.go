package cards

import (
	"bufio"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// event is one line of a recorded sequence: an ACP session update (as the
// agent sent it on the wire), a notice, or a status change from the bot.
type event struct {
	Update *acp.SessionUpdate `json:"update,omitempty"`
	Notice *struct {
		Level string `json:"level"`
		Text  string `json:"text"`
	} `json:"notice,omitempty"`
	Status *struct {
		State  string `json:"state"`
		Detail string `json:"detail"`
	} `json:"status,omitempty"`
}

func loadEvents(t testing.TB, name string) []event {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name+".jsonl"))
	if err != nil {
		t.Fatalf("open recorded sequence: %v", err)
	}
	defer f.Close()
	var evs []event
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var e event
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("%s.jsonl line %d: %v", name, n, err)
		}
		evs = append(evs, e)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read %s: %v", name, err)
	}
	return evs
}

func parseState(t testing.TB, s string) State {
	switch s {
	case "running":
		return StateRunning
	case "waiting":
		return StateWaitingApproval
	case "done":
		return StateDone
	case "cancelled":
		return StateCancelled
	case "failed":
		return StateFailed
	}
	t.Fatalf("unknown state %q in recorded sequence", s)
	return 0
}

func (e event) applyTo(t testing.TB, c *Card) {
	switch {
	case e.Update != nil:
		c.Apply(*e.Update)
	case e.Notice != nil:
		c.Notice(e.Notice.Level, e.Notice.Text)
	case e.Status != nil:
		c.SetStatus(Status{State: parseState(t, e.Status.State), Detail: e.Status.Detail})
	}
}

func cardFrom(t testing.TB, name string, opts ...Option) *Card {
	c := New(opts...)
	for _, e := range loadEvents(t, name) {
		e.applyTo(t, c)
	}
	return c
}

// golden compares got with testdata/golden/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file (run `go test ./cards -update` to create it): %v", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the golden file; rerun with -update if the change is intended\n--- got ---\n%s\n--- want ---\n%s", name, got, want)
	}
}

// deliver runs the bot's roll-over loop over a card: each stream shows the
// body from where the previous one had to finish. It returns the final frame
// of every stream.
func deliver(t testing.TB, c *Card) []StreamFrame {
	t.Helper()
	var out []StreamFrame
	for from := 0; ; {
		fr := c.Stream(from, 0)
		out = append(out, fr)
		if !fr.MustFinish {
			return out
		}
		if fr.BodyEnd <= from {
			t.Fatalf("stream from %d must finish but delivers nothing (end %d)", from, fr.BodyEnd)
		}
		from = fr.BodyEnd
		if len(out) > 10000 {
			t.Fatal("roll-over does not terminate")
		}
	}
}

func msg(id, text string) acp.SessionUpdate {
	return acp.SessionUpdate{AgentMessageChunk: &acp.SessionUpdateAgentMessageChunk{
		Content: acp.TextBlock(text), MessageId: idPtr(id), SessionUpdate: "agent_message_chunk"}}
}

func thought(id, text string) acp.SessionUpdate {
	return acp.SessionUpdate{AgentThoughtChunk: &acp.SessionUpdateAgentThoughtChunk{
		Content: acp.TextBlock(text), MessageId: idPtr(id), SessionUpdate: "agent_thought_chunk"}}
}

func idPtr(id string) *string {
	if id == "" {
		return nil
	}
	return &id
}
