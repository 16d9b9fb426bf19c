package cards

import (
	"testing"

	acp "github.com/coder/acp-go-sdk"
)

func headFootCard(status Status) *Card {
	c := New(WithHeader("🔒 Mode: read-only"))
	c.Apply(acp.SessionUpdate{AgentMessageChunk: &acp.SessionUpdateAgentMessageChunk{Content: acp.TextBlock("The answer.")}})
	c.SetFooter("Tokens: 10")
	c.SetStatus(status)
	return c
}

// The header leads the first stream and the markdown; the footer follows
// the finished card's status, and a running card does not show it.
func TestHeaderAndFooter(t *testing.T) {
	done := headFootCard(Status{State: StateDone})
	if got, want := done.Stream(0, 0).Content, "🔒 Mode: read-only\n\nThe answer.\n\nTokens: 10"; got != want {
		t.Errorf("done stream =\n%q\nwant\n%q", got, want)
	}
	if got, want := done.Stream(3, 0).Content, " answer.\n\nTokens: 10"; got != want {
		t.Errorf("a later stream =\n%q\nwant\n%q", got, want)
	}
	md := done.Markdown(4096)
	if len(md) != 1 || md[0] != "🔒 Mode: read-only\n\nThe answer.\n\nTokens: 10" {
		t.Errorf("markdown = %q", md)
	}
	running := headFootCard(Running())
	if got, want := running.Stream(0, 0).Content, "<think>\n⏳ Working…\n</think>\n\n🔒 Mode: read-only\n\nThe answer."; got != want {
		t.Errorf("running stream =\n%q\nwant\n%q", got, want)
	}
	failed := headFootCard(Status{State: StateFailed, Detail: "boom"})
	if got, want := failed.Markdown(4096), []string{"🔒 Mode: read-only\n\nThe answer.\n\n" + StatusLine(failed.Status()) + "\n\nTokens: 10"}; len(got) != 1 || got[0] != want[0] {
		t.Errorf("failed markdown = %q, want %q", got, want)
	}
}
