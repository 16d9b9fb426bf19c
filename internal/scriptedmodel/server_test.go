package scriptedmodel

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
)

// sseEvent is one parsed server-sent event.
type sseEvent struct {
	Name string         // the event: line
	Data map[string]any // the data: line
}

// post sends a minimal Responses request whose latest user message is prompt.
func post(t testing.TB, url, prompt string) *http.Response {
	t.Helper()
	body, _ := json.Marshal(map[string]any{
		"model": "m",
		"input": []any{
			map[string]any{"type": "message", "role": "developer", "content": []any{map[string]any{"type": "input_text", "text": "be brief"}}},
			map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": prompt}}},
			map[string]any{"type": "function_call_output", "call_id": "c0", "output": "earlier output"},
		},
	})
	resp, err := http.Post(url+"/responses", "application/json", strings.NewReader(string(body)))
	if err != nil {
		t.Fatalf("POST /responses: %v", err)
	}
	return resp
}

func readEvents(t testing.TB, r io.Reader) []sseEvent {
	t.Helper()
	var out []sseEvent
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	var cur sseEvent
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			cur.Name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &cur.Data); err != nil {
				t.Fatalf("event data is not JSON: %q: %v", line, err)
			}
		case line == "":
			out = append(out, cur)
			cur = sseEvent{}
		}
	}
	return out
}

func startServer(t testing.TB, script Script) *Server {
	t.Helper()
	s := New(script)
	if _, err := s.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func TestStreamShape(t *testing.T) {
	s := startServer(t, Sequence(Reply(
		Reasoning("Thinking hard."),
		MessageDeltas(PhaseCommentary, "Look", "ing."),
		ExecCommand("call_1", "ls -a"),
	).WithUsage(Usage{InputTokens: 7, OutputTokens: 3})))
	resp := post(t, s.URL(), "list files")
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("status %d content-type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	events := readEvents(t, resp.Body)

	var names []string
	for i, e := range events {
		names = append(names, e.Name)
		if e.Data["type"] != e.Name {
			t.Errorf("event %d: data type %v, event line %q", i, e.Data["type"], e.Name)
		}
		if e.Data["sequence_number"] != float64(i) {
			t.Errorf("event %d: sequence_number %v", i, e.Data["sequence_number"])
		}
	}
	want := []string{
		"response.created", "response.in_progress",
		"response.output_item.added", "response.reasoning_summary_part.added",
		"response.reasoning_summary_text.delta", "response.reasoning_summary_text.delta",
		"response.reasoning_summary_text.done", "response.reasoning_summary_part.done", "response.output_item.done",
		"response.output_item.added", "response.content_part.added",
		"response.output_text.delta", "response.output_text.delta",
		"response.output_text.done", "response.content_part.done", "response.output_item.done",
		"response.output_item.added", "response.function_call_arguments.delta",
		"response.function_call_arguments.done", "response.output_item.done",
		"response.completed",
	}
	if !reflect.DeepEqual(names, want) {
		t.Fatalf("events:\n got %q\nwant %q", names, want)
	}

	check := func(i int, path string, want any) {
		t.Helper()
		var v any = events[i].Data
		for _, k := range strings.Split(path, ".") {
			switch x := v.(type) {
			case map[string]any:
				v = x[k]
			case []any:
				v = x[0]
			}
		}
		if !reflect.DeepEqual(v, want) {
			t.Errorf("event %d (%s) %s = %#v, want %#v", i, events[i].Name, path, v, want)
		}
	}
	check(4, "delta", "Thinking")
	check(5, "delta", " hard.")
	check(4, "summary_index", float64(0))
	check(8, "item.summary.0.text", "Thinking hard.")
	check(9, "item.phase", "commentary")
	check(11, "delta", "Look")
	check(12, "delta", "ing.")
	check(11, "item_id", events[9].Data["item"].(map[string]any)["id"])
	check(15, "item.content.0.text", "Looking.")
	check(15, "item.phase", "commentary")
	check(15, "item.role", "assistant")
	check(19, "item.type", "function_call")
	check(19, "item.name", "exec_command")
	check(19, "item.call_id", "call_1")
	check(19, "item.arguments", `{"cmd":"ls -a"}`)
	check(20, "response.usage.input_tokens", float64(7))
	check(20, "response.usage.total_tokens", float64(10))

	reqs := s.Requests()
	if len(reqs) != 1 {
		t.Fatalf("requests: %d", len(reqs))
	}
	r := reqs[0]
	if r.Seq != 1 || r.Status != 200 || r.Err != "" || r.UserText != "list files" ||
		!reflect.DeepEqual(r.InputTypes, []string{"message", "message", "function_call_output"}) ||
		!reflect.DeepEqual(r.CallOutputs, []CallOutput{{CallID: "c0", Output: "earlier output"}}) {
		t.Errorf("recorded request = %+v", r)
	}
	if s.Err() != nil {
		t.Errorf("Err() = %v", s.Err())
	}
}

func TestMessageWithoutPhaseOmitsIt(t *testing.T) {
	s := startServer(t, Sequence(Reply(Message("", "plain"))))
	resp := post(t, s.URL(), "hi")
	defer resp.Body.Close()
	for _, e := range readEvents(t, resp.Body) {
		if item, ok := e.Data["item"].(map[string]any); ok {
			if _, has := item["phase"]; has {
				t.Errorf("%s item has a phase: %v", e.Name, item)
			}
		}
	}
}

func TestExtraRequestFailsClearly(t *testing.T) {
	s := startServer(t, Sequence(Reply(Message(PhaseFinalAnswer, "one"))))
	resp := post(t, s.URL(), "first")
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	resp = post(t, s.URL(), "second")
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusInternalServerError || !strings.Contains(string(body), "request 2 has no scripted response") {
		t.Errorf("extra request: status %d body %s", resp.StatusCode, body)
	}
	if err := s.Err(); err == nil || !strings.Contains(err.Error(), `latest user message "second"`) {
		t.Errorf("Err() = %v, want the unscripted request named", err)
	}

	resp, err := http.Get(s.URL() + "/whatever")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(s.Err().Error(), "GET /v1/whatever: unexpected endpoint") {
		t.Errorf("unexpected endpoint: status %d, Err() = %v", resp.StatusCode, s.Err())
	}
}

func TestByPrompt(t *testing.T) {
	s := startServer(t, ByPrompt(map[string][]Response{
		"alpha": {Reply(Message(PhaseFinalAnswer, "A1")), Reply(Message(PhaseFinalAnswer, "A2"))},
		"beta":  {Reply(Message(PhaseFinalAnswer, "B1"))},
	}))
	answer := func(prompt string) string {
		resp := post(t, s.URL(), prompt)
		defer resp.Body.Close()
		if resp.StatusCode != 200 {
			var e struct{ Error struct{ Message string } }
			_ = json.NewDecoder(resp.Body).Decode(&e)
			return "error: " + e.Error.Message
		}
		events := readEvents(t, resp.Body)
		for _, e := range events {
			if e.Name == "response.output_text.done" {
				return e.Data["text"].(string)
			}
		}
		return ""
	}
	got := []string{answer("say alpha"), answer("say beta"), answer("alpha again")}
	if want := []string{"A1", "B1", "A2"}; !reflect.DeepEqual(got, want) {
		t.Errorf("answers %q, want %q", got, want)
	}
	for prompt, wantErr := range map[string]string{
		"gamma":      "matches no scripted prompt",
		"alpha beta": "matches several scripted prompts",
		"beta":       `prompt "beta": scriptedmodel: request 2 has no scripted response`,
	} {
		if got := answer(prompt); !strings.Contains(got, wantErr) {
			t.Errorf("answer(%q) = %q, want an error containing %q", prompt, got, wantErr)
		}
	}
}

func TestGateHoldsThenReleases(t *testing.T) {
	g := NewGate()
	s := startServer(t, Sequence(Reply(MessageDeltas(PhaseFinalAnswer, "a", "b", "c")).WithHold(2, g)))
	resp := post(t, s.URL(), "hold")
	defer resp.Body.Close()
	<-g.Reached()
	// Everything before the hold point was flushed: read it without waiting
	// for the rest of the stream.
	r := bufio.NewReader(resp.Body)
	var deltas []string
	for len(deltas) < 2 {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("read before release: %v", err)
		}
		if strings.HasPrefix(line, "data: ") && strings.Contains(line, "output_text.delta") {
			var d struct{ Delta string }
			_ = json.Unmarshal([]byte(line[6:]), &d)
			deltas = append(deltas, d.Delta)
		}
	}
	g.Release()
	g.Release() // idempotent
	var rest []string
	for _, e := range readEvents(t, r) {
		if e.Name == "response.output_text.delta" {
			rest = append(rest, e.Data["delta"].(string))
		}
		if e.Name == "response.output_text.done" && e.Data["text"] != "abc" {
			t.Errorf("done text %v", e.Data["text"])
		}
	}
	if !reflect.DeepEqual(deltas, []string{"a", "b"}) || !reflect.DeepEqual(rest, []string{"c"}) {
		t.Errorf("deltas before release %q, after %q", deltas, rest)
	}
}

func TestCloseEndsHeldStream(t *testing.T) {
	g := NewGate()
	s := New(Sequence(Reply(MessageDeltas(PhaseFinalAnswer, "a", "b")).WithHold(1, g)))
	if _, err := s.Start(); err != nil {
		t.Fatal(err)
	}
	resp := post(t, s.URL(), "hold")
	defer resp.Body.Close()
	<-g.Reached()
	// Close must return although the stream is held and the client is still
	// reading; a hang here fails the test by the test timeout.
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	for _, e := range readEvents(t, resp.Body) {
		if e.Name == "response.completed" {
			t.Errorf("a stream cut by Close must not complete")
		}
	}
}

func TestSplitWords(t *testing.T) {
	for in, want := range map[string][]string{
		"":                    nil,
		"one":                 {"one"},
		"I will  inspect\nit": {"I", " will", "  inspect", "\nit"},
		"  lead":              {"  lead"},
		"trail ":              {"trail "},
	} {
		got := SplitWords(in)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("SplitWords(%q) = %q, want %q", in, got, want)
		}
		if strings.Join(got, "") != in {
			t.Errorf("SplitWords(%q) does not join back", in)
		}
	}
}
