package demo

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/wecodex/wecodex/internal/scriptedmodel"
)

// What the bot engine itself answers (bot/text.go).
const (
	textStopped = "OK — asked the running turn to stop."
	textRefused = "Sorry, you are not allowed to use this bot. Ask an admin to add you to the access list."
)

// answerText is Answer as the page shows it: markdown rendered, so the text
// of its three paragraphs, each ending in a newline.
var answerText = strings.NewReplacer("`", "", "**", "", "\n\n", "\n").Replace(Answer) + "\n"

// card is what a test reads of one card on the page.
type card struct {
	State     string `json:"state"`
	Status    string `json:"status"`
	Progress  string `json:"progress"`
	Body      string `json:"body"`
	Continued []string
}

const readCardsJS = `[...document.querySelectorAll('[data-testid=card]')].map(c => ({
	state: c.dataset.state,
	status: c.querySelector('[data-testid=status]').textContent,
	progress: c.querySelector('[data-testid=progress]').textContent,
	body: c.querySelector('[data-testid=body]').textContent,
	Continued: [...c.querySelectorAll('[data-testid=body] .continued')].map(e => e.textContent),
}))`

func readCards(t *testing.T, ctx context.Context) []card {
	t.Helper()
	cs, err := chromedp.Run(ctx, chromedp.Evaluate[[]card](readCardsJS))
	if err != nil {
		t.Fatalf("read cards: %v", err)
	}
	return cs
}

// waitCard waits until card i (0-based) satisfies cond, a JavaScript
// expression over s (its status text), p (progress text) and b (body text).
func waitCard(t *testing.T, ctx context.Context, i int, cond string) {
	t.Helper()
	js := `(() => { const c = document.querySelectorAll('[data-testid=card]')[` + strconv.Itoa(i) + `]; if (!c) return false;
		const s = c.querySelector('[data-testid=status]').textContent;
		const p = c.querySelector('[data-testid=progress]').textContent;
		const b = c.querySelector('[data-testid=body]').textContent;
		return ` + cond + `; })()`
	gctx, cancel := guard(ctx)
	defer cancel()
	if _, err := chromedp.Run(gctx, chromedp.Poll[bool](js, chromedp.WithPollingInterval(100*time.Millisecond), chromedp.WithPollingTimeout(0))); err != nil {
		t.Fatalf("card %d never got to %s: %v\ncards: %+v", i, cond, err, readCards(t, ctx))
	}
}

// open loads the playground and waits for its event stream.
func open(t *testing.T, ctx context.Context, url string) {
	t.Helper()
	gctx, cancel := guard(ctx)
	defer cancel()
	err := chromedp.Do(gctx,
		chromedp.Navigate(url),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=composer]`)),
		chromedp.WaitVisible(chromedp.CSS(`#conn[data-state=open]`)),
	)
	if err != nil {
		t.Fatalf("open %s: %v", url, err)
	}
}

// send types text in the composer and clicks send.
func send(t *testing.T, ctx context.Context, text string) {
	t.Helper()
	gctx, cancel := guard(ctx)
	defer cancel()
	err := chromedp.Do(gctx,
		chromedp.Click(chromedp.CSS(`[data-testid=composer]`)),
		chromedp.SendKeys(chromedp.CSS(`[data-testid=composer]`), text),
		chromedp.Click(chromedp.CSS(`[data-testid=send]`)),
	)
	if err != nil {
		t.Fatalf("send %q: %v", text, err)
	}
}

// TestPlaygroundTurnAndStop drives the demo setup (real wecodex serve, real
// Codex on the demo model, real Redis) from headless Chromium: a full turn
// whose commentary lands in the progress section and whose answer is the
// body, then a long turn stopped with /stop from the composer.
func TestPlaygroundTurnAndStop(t *testing.T) {
	// The long answer stops at a gate after a few words, so it is still
	// running when the queued message and /stop arrive, at any speed.
	gate := scriptedmodel.NewGate()
	t.Cleanup(gate.Release)
	isLong := func(req *scriptedmodel.Request) bool {
		return strings.Contains(strings.ToLower(req.UserText), LongWord)
	}
	// The hold counts the commentary's deltas too: stop five words into the answer.
	d := startDemoScript(t, holdingScript(isLong, len(scriptedmodel.SplitWords(LongCommentary))+5, gate))
	ctx := browser(t)
	open(t, ctx, d.URL)

	send(t, ctx, "What is in my workspace?")
	waitCard(t, ctx, 0, `s.endsWith("done")`)
	c := readCards(t, ctx)[0]
	if c.Status != "done" || c.State != "done" {
		t.Errorf("status = %q (state %q), want done", c.Status, c.State)
	}
	if !strings.Contains(c.Progress, Commentary) {
		t.Errorf("progress %q lacks the commentary %q", c.Progress, Commentary)
	}
	if !strings.Contains(c.Progress, "ls -la") {
		t.Errorf("progress %q lacks the command %q", c.Progress, Command)
	}
	if strings.Contains(c.Body, Commentary) {
		t.Errorf("body %q contains the commentary", c.Body)
	}
	if c.Body != answerText {
		t.Errorf("body = %q\nwant %q", c.Body, answerText)
	}
	// The command really ran: its output went back to the model.
	reqs := d.Model.ModelRequests()
	if len(reqs) != 2 {
		t.Fatalf("model requests = %d, want 2 (commentary+command, then answer)", len(reqs))
	}
	if out, ok := reqs[1].CallOutput("demo_ls"); !ok || !strings.Contains(out, "total ") {
		t.Errorf("second request's demo_ls output = %q (found %v), want the ls -la listing", out, ok)
	}
	screenshotCard(t, ctx, 0)

	send(t, ctx, "Tell me a long story")
	waitCard(t, ctx, 1, `b.includes("Counting sheep")`)
	// A message sent meanwhile waits its turn, and says so.
	send(t, ctx, "And what is in it now?")
	waitCard(t, ctx, 2, `s.startsWith("queued")`)
	if c := readCards(t, ctx)[2]; c.Status != "queued (position 1)" || c.State != "queued" {
		t.Errorf("waiting message: status %q (state %q), want queued (position 1)", c.Status, c.State)
	}
	send(t, ctx, "/stop")
	waitCard(t, ctx, 1, `s === "cancelled"`)
	waitCard(t, ctx, 3, `s.endsWith("done")`)
	waitCard(t, ctx, 2, `s.endsWith("done")`)
	cs := readCards(t, ctx)
	if len(cs) != 4 {
		t.Fatalf("cards = %d, want 4", len(cs))
	}
	long, queued, stop := cs[1], cs[2], cs[3]
	if queued.Body != answerText || !strings.Contains(queued.Progress, Commentary) {
		t.Errorf("the queued message's card after the stop = %+v, want a full turn", queued)
	}
	if long.Status != "cancelled" || long.State != "cancelled" {
		t.Errorf("long turn status = %q (state %q), want cancelled", long.Status, long.State)
	}
	if !strings.Contains(long.Progress, LongCommentary) || !strings.Contains(long.Progress, "Stopped with /stop.") {
		t.Errorf("long turn progress = %q, want its commentary and the stop notice", long.Progress)
	}
	partial := strings.TrimSpace(long.Body)
	if partial == "" || partial == LongAnswer() || !strings.HasPrefix(LongAnswer(), partial) {
		t.Errorf("long turn body = %q, want a proper start of the long answer", partial)
	}
	if stop.Body != textStopped+"\n" || stop.Status != "done" {
		t.Errorf("/stop card = body %q status %q, want %q done", stop.Body, stop.Status, textStopped)
	}
}

// screenshotCard saves card i, its progress fold opened, as
// artifacts/playground-card.png for the README.
func screenshotCard(t *testing.T, ctx context.Context, i int) {
	t.Helper()
	gctx, cancel := guard(ctx)
	defer cancel()
	sel := `[data-testid=card][data-id="` + readCardIDs(t, ctx)[i] + `"]`
	_, err := chromedp.Run(gctx, chromedp.Evaluate[bool](`(() => { const f = document.querySelector('`+sel+` details'); f.open = true; return f.open; })()`))
	if err != nil {
		t.Fatalf("open progress fold: %v", err)
	}
	// The message and its card: the two chat rows of this exchange.
	rows, err := chromedp.Run(gctx, chromedp.Nodes(chromedp.CSSAll(`.chat > .row`)))
	if err != nil || len(rows) < 2*(i+1) {
		t.Fatalf("find chat rows of card %d: %d rows, %v", i, len(rows), err)
	}
	png, err := chromedp.Run(gctx, chromedp.ScreenshotNodes(rows[2*i:2*i+2], 1.5))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	dir := filepath.Join(moduleRoot(t), "artifacts")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "playground-card.png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot of a finished card: %s", path)
}

func readCardIDs(t *testing.T, ctx context.Context) []string {
	t.Helper()
	ids, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('[data-testid=card]')].map(c => c.dataset.id)`))
	if err != nil {
		t.Fatalf("read card ids: %v", err)
	}
	return ids
}

// TestPlaygroundRefusal: the playground speaks as playground.user and gets
// no shortcut past the allow-list; a user the bot does not allow sees its
// refusal and Codex is never asked.
func TestPlaygroundRefusal(t *testing.T) {
	d := startDemo(t, "WECODEX_PLAYGROUND_USER=mallory")
	ctx := browser(t)
	open(t, ctx, d.URL)
	send(t, ctx, "rm -rf / please")
	waitCard(t, ctx, 0, `s.endsWith("done")`)
	c := readCards(t, ctx)[0]
	if c.Body != textRefused+"\n" || c.Progress != "" || c.Status != "done" {
		t.Errorf("card = %+v, want the refusal %q as body, no progress, done", c, textRefused)
	}
	if n := len(d.Model.Requests()); n != 0 {
		t.Errorf("model requests = %d, want 0 for a refused user", n)
	}
}

// TestPlaygroundResponseURL: when the stream window closes before the turn
// ends, the bot finishes the stream with a note and delivers the answer
// through response_url; the playground's response_url server receives it and
// the card shows it under the stream's part, every byte of it once.
func TestPlaygroundResponseURL(t *testing.T) {
	// The answer waits at a gate until the stream finished with its note,
	// so the window closes before the answer at any machine speed.
	gate := scriptedmodel.NewGate()
	t.Cleanup(gate.Release)
	d := startDemoScript(t, holdingScript(afterCommand, 0, gate), "WECODEX_WECOM_AIBOT_STREAM_WINDOW=1s")
	ctx := browser(t)
	open(t, ctx, d.URL)
	send(t, ctx, "What is in my workspace?")
	waitCard(t, ctx, 0, `s === "running (continues in a separate message)"`)
	note := "(this reply is taking long: the rest of the answer follows in a separate message)"
	if c := readCards(t, ctx)[0]; c.Body != note+"\n" || len(c.Continued) != 0 {
		t.Fatalf("stream after its window closed: body %q, continued %q; want only the note", c.Body, c.Continued)
	}
	gate.Release()
	waitCard(t, ctx, 0, `s.endsWith("done")`)
	c := readCards(t, ctx)[0]
	// The continuation says what it continues, then carries the answer.
	continued := "(continued from the card above)\n" + answerText
	if len(c.Continued) != 1 || c.Continued[0] != continued {
		t.Fatalf("continued parts = %q, want one with %q", c.Continued, continued)
	}
	// The continuation is a block of its own: a newline follows it.
	if want := note + "\n" + continued + "\n"; c.Body != want {
		t.Errorf("body = %q\nwant the window note then the answer once: %q", c.Body, want)
	}
	// The continuation carries only the answer's rest: the progress the
	// stream had not shown when its window closed is not repeated there.
	if strings.Contains(c.Continued[0], Commentary) || c.Status != "done" {
		t.Errorf("continued = %q, status = %q; want no progress in it and done", c.Continued[0], c.Status)
	}
}
