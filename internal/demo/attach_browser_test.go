package demo

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/wecodex/wecodex/internal/intaketest"
)

// TestPlaygroundAttachPicture: a picture attached on the page with typed
// text goes, as WeCom sends it from a group, as a mixed message whose
// picture the playground serves encrypted; the real wecodex fetches and
// decrypts it, and the text runs a whole Codex turn.
func TestPlaygroundAttachPicture(t *testing.T) {
	d := startDemo(t)
	ctx := browser(t)
	open(t, ctx, d.URL)
	shot := filepath.Join(t.TempDir(), "shot.png")
	if err := os.WriteFile(shot, intaketest.PNG, 0o600); err != nil {
		t.Fatal(err)
	}
	gctx, cancel := guard(ctx)
	defer cancel()
	err := chromedp.Do(gctx,
		chromedp.SendKeys(chromedp.CSS(`[data-testid=composer]`), "What is in my workspace?"),
		chromedp.SetUploadFiles(chromedp.CSS(`[data-testid=attach-input]`), []string{shot}),
	)
	if err != nil {
		t.Fatalf("attach: %v", err)
	}
	waitCard(t, ctx, 0, `s.endsWith("done")`)
	if c := readCards(t, ctx)[0]; c.Body != answerText {
		t.Errorf("body = %q\nwant %q", c.Body, answerText)
	}
	bubble, err := chromedp.Run(gctx, chromedp.TextContent(chromedp.CSS(`.bubble`)))
	if err != nil {
		t.Fatal(err)
	}
	if bubble != "[image: shot.png] What is in my workspace?" {
		t.Errorf("the message on the page reads %q", bubble)
	}
	if reqs := d.Model.ModelRequests(); len(reqs) == 0 || !strings.Contains(reqs[0].UserText, "What is in my workspace?") {
		t.Fatalf("the model was not asked the typed text: %d requests", len(reqs))
	}
}
