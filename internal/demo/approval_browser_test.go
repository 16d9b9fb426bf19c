package demo

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/wecodex/wecodex/internal/scriptedmodel"
)

// The playground with agent.approval: ask (the default): Codex asks before
// a command that must leave the sandbox, the card waits for approval and
// says what is asked, /approve from the composer lets it run, and the card
// finishes with the answer. The waiting card is saved as
// artifacts/playground-approval.png for the README.
func TestPlaygroundApproval(t *testing.T) {
	d := startDemoScript(t, scriptedmodel.Sequence(
		scriptedmodel.Reply(scriptedmodel.EscalatedExecCommand("demo_esc", "echo approved > approved.txt", "writes a file outside the sandbox")),
		scriptedmodel.Reply(scriptedmodel.Message(scriptedmodel.PhaseFinalAnswer, "Wrote approved.txt.")),
	))
	ctx := browser(t)
	open(t, ctx, d.URL)

	send(t, ctx, "Write approved.txt")
	waitCard(t, ctx, 0, `s.startsWith("waiting for approval")`)
	c := readCards(t, ctx)[0]
	if c.State != "waiting" || !strings.Contains(c.Progress, "Approval #1 asked of playground (or an admin): /bin/bash -c 'echo approved > approved.txt' in ") {
		t.Fatalf("waiting card = %+v, want the request in the progress section", c)
	}
	screenshotApproval(t, ctx)

	send(t, ctx, "/approve")
	waitCard(t, ctx, 0, `s.endsWith("done")`)
	c = readCards(t, ctx)[0]
	if strings.TrimSpace(c.Body) != "Wrote approved.txt." || !strings.Contains(c.Progress, "#1 approved by playground: ") {
		t.Fatalf("approved card = %+v, want the answer and who approved", c)
	}
	if out, ok := d.Model.ModelRequests()[1].CallOutput("demo_esc"); !ok || strings.Contains(out, "rejected") {
		t.Fatalf("the approved command's output = %q (found %v), want it run", out, ok)
	}
}

func screenshotApproval(t *testing.T, ctx context.Context) {
	t.Helper()
	gctx, cancel := guard(ctx)
	defer cancel()
	rows, err := chromedp.Run(gctx, chromedp.Nodes(chromedp.CSSAll(`.chat > .row`)))
	if err != nil || len(rows) < 2 {
		t.Fatalf("find chat rows: %d rows, %v", len(rows), err)
	}
	png, err := chromedp.Run(gctx, chromedp.ScreenshotNodes(rows[0:2], 1.5))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	dir := filepath.Join(moduleRoot(t), "artifacts")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "playground-approval.png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot of a card waiting for approval: %s", path)
}
