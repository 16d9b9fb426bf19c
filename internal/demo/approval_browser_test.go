package demo

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/wecodex/wecodex/internal/scriptedmodel"
)

// escalationScript has Codex ask before a command that must leave the
// sandbox, then answer.
func escalationScript() scriptedmodel.Script {
	return scriptedmodel.Sequence(
		scriptedmodel.Reply(scriptedmodel.EscalatedExecCommand("demo_esc", "echo approved > approved.txt", "writes a file outside the sandbox")),
		scriptedmodel.Reply(scriptedmodel.Message(scriptedmodel.PhaseFinalAnswer, "Wrote approved.txt.")),
	)
}

// The playground with agent.approval: ask (the default) in webhook mode:
// Codex asks before a command that must leave the sandbox, the card waits
// for approval, says what is asked and offers the three commands as
// buttons; Approve sends /approve as the playground user, the command runs,
// and the card finishes with the answer, its buttons gone. The waiting card
// is saved as artifacts/playground-approval.png for the README.
func TestPlaygroundApproval(t *testing.T) {
	d := startDemoScript(t, escalationScript())
	ctx := browser(t)
	open(t, ctx, d.URL)

	send(t, ctx, "Write approved.txt")
	waitCard(t, ctx, 0, `s.startsWith("waiting for approval")`)
	c := readCards(t, ctx)[0]
	if c.State != "waiting" || !strings.Contains(c.Progress, "Approval #1 asked of playground (or an admin): /bin/bash -c 'echo approved > approved.txt' in ") {
		t.Fatalf("waiting card = %+v, want the request in the progress section", c)
	}
	want := []string{"Approve /approve", "Approve always /approve always", "Deny /deny"}
	if got := readButtons(t, ctx, 0); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("buttons = %q, want %q", got, want)
	}
	screenshotApproval(t, ctx)

	clickIn(t, ctx, `[data-testid=card] [data-command="/approve"]`)
	waitCard(t, ctx, 0, `s.endsWith("done")`)
	waitCard(t, ctx, 1, `s.endsWith("done")`)
	cs := readCards(t, ctx)
	if strings.TrimSpace(cs[0].Body) != "Wrote approved.txt." || !strings.Contains(cs[0].Progress, "#1 approved by playground: ") {
		t.Fatalf("approved card = %+v, want the answer and who approved", cs[0])
	}
	if !strings.HasPrefix(strings.TrimSpace(cs[1].Body), "OK — #1 approved by playground: /bin/bash -c 'echo approved > approved.txt' in ") {
		t.Fatalf("the button's reply = %+v, want /approve's answer", cs[1])
	}
	if got := readButtons(t, ctx, 0); len(got) != 0 {
		t.Fatalf("buttons after the decision = %q, want none", got)
	}
	if got := readPrompts(t, ctx); strings.Join(got, "|") != "Write approved.txt|/approve" {
		t.Fatalf("messages sent = %q, want the prompt, then the button's /approve", got)
	}
	if out, ok := d.Model.ModelRequests()[1].CallOutput("demo_esc"); !ok || strings.Contains(out, "rejected") {
		t.Fatalf("the approved command's output = %q (found %v), want it run", out, ok)
	}
}

// In long-connection mode the playground shows the button_interaction card
// the bot sent by aibot_send_msg, and a click is a real
// template_card_event: the bot answers it with aibot_respond_update_msg,
// whose card replaces the clicked one, and the command runs.
func TestPlaygroundLongConnApproval(t *testing.T) {
	d := startDemoConfig(t, "wecodex-longconn.yaml", escalationScript())
	ctx := browser(t)
	open(t, ctx, d.URL)

	send(t, ctx, "Write approved.txt")
	waitCard(t, ctx, 0, `s.startsWith("waiting for approval")`)
	waitTemplateCard(t, ctx, `t.startsWith("Codex asks #1")`)
	want := "Codex asks #1|for playground or an admin|Approve=appr:1:approve Always=appr:1:always Deny=appr:1:deny"
	if got := readTemplateCard(t, ctx); !strings.HasPrefix(got, "Codex asks #1|for playground or an admin|`/bin/bash -c 'echo approved > approved.txt'` in ") ||
		!strings.HasSuffix(got, "|Approve=appr:1:approve Always=appr:1:always Deny=appr:1:deny") {
		t.Fatalf("template card = %q, want %q around the request", got, want)
	}
	if got := readButtons(t, ctx, 0); len(got) != 0 {
		t.Fatalf("the stream card offers commands %q; over the long connection the button card does", got)
	}

	clickIn(t, ctx, `[data-testid=tcard] button[data-key="appr:1:approve"]`)
	waitTemplateCard(t, ctx, `t.startsWith("Approved by playground")`)
	if got := readTemplateCard(t, ctx); !strings.HasPrefix(got, "Approved by playground|OK — #1 approved by playground: ") ||
		!strings.HasSuffix(got, "|Approved by playground=appr:1:done") {
		t.Fatalf("card after the click = %q, want the outcome and a no-op button", got)
	}
	waitCard(t, ctx, 0, `s.endsWith("done")`)
	c := readCards(t, ctx)[0]
	if strings.TrimSpace(c.Body) != "Wrote approved.txt." || !strings.Contains(c.Progress, "#1 approved by playground: ") {
		t.Fatalf("approved card = %+v, want the answer and who approved", c)
	}
	if out, ok := d.Model.ModelRequests()[1].CallOutput("demo_esc"); !ok || strings.Contains(out, "rejected") {
		t.Fatalf("the approved command's output = %q (found %v), want it run", out, ok)
	}
}

// readButtons is card i's command buttons, "label command" each.
func readButtons(t *testing.T, ctx context.Context, i int) []string {
	t.Helper()
	js := `[...document.querySelectorAll('[data-testid=card]')[` + strconv.Itoa(i) + `].querySelectorAll('[data-testid=actions]:not([hidden]) button')].map(b => b.querySelector('.label').textContent + " " + b.dataset.command)`
	got, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](js))
	if err != nil {
		t.Fatalf("read buttons: %v", err)
	}
	return got
}

// readPrompts is the text of every message the page sent, in order.
func readPrompts(t *testing.T, ctx context.Context) []string {
	t.Helper()
	got, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('.row.mine .bubble')].map(b => b.textContent)`))
	if err != nil {
		t.Fatalf("read prompts: %v", err)
	}
	return got
}

// readTemplateCard is the newest button card: "title|desc|sub|text=key …".
func readTemplateCard(t *testing.T, ctx context.Context) string {
	t.Helper()
	js := `(() => { const c = [...document.querySelectorAll('[data-testid=tcard]')].pop(); if (!c) return "";
		const txt = (s) => c.querySelector(s)?.textContent ?? "";
		return [txt('.tcard-title'), txt('.tcard-desc'), txt('.tcard-sub')].filter(x => x !== "").join("|") + "|" +
			[...c.querySelectorAll('button')].map(b => b.textContent + "=" + b.dataset.key).join(" "); })()`
	got, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
	if err != nil {
		t.Fatalf("read template card: %v", err)
	}
	return got
}

// waitTemplateCard waits until the newest button card's title t satisfies
// cond, a JavaScript expression.
func waitTemplateCard(t *testing.T, ctx context.Context, cond string) {
	t.Helper()
	js := `(() => { const c = [...document.querySelectorAll('[data-testid=tcard]')].pop(); if (!c) return false;
		const t = c.querySelector('.tcard-title').textContent; return ` + cond + `; })()`
	gctx, cancel := guard(ctx)
	defer cancel()
	if _, err := chromedp.Run(gctx, chromedp.Poll[bool](js, chromedp.WithPollingTimeout(0))); err != nil {
		t.Fatalf("no button card with %s: %v (newest: %q)", cond, err, readTemplateCard(t, ctx))
	}
}

// clickIn clicks the first element sel matches.
func clickIn(t *testing.T, ctx context.Context, sel string) {
	t.Helper()
	gctx, cancel := guard(ctx)
	defer cancel()
	if err := chromedp.Do(gctx, chromedp.Click(chromedp.CSS(sel))); err != nil {
		t.Fatalf("click %s: %v", sel, err)
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
