package demo

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestPlaygroundLongConnTurn: with configs/wecodex-longconn.yaml the
// playground plays WeCom's long-connection server; wecodex dials it, and a
// message typed on the page comes back as pushed frames: the commentary in
// the progress section, the answer as the body, the card done.
func TestPlaygroundLongConnTurn(t *testing.T) {
	d := startDemoConfig(t, "wecodex-longconn.yaml", nil)
	ctx := browser(t)
	open(t, ctx, d.URL)
	send(t, ctx, "What is in my workspace?")
	waitCard(t, ctx, 0, `s.endsWith("done")`)
	c := readCards(t, ctx)[0]
	if c.Status != "done" || c.State != "done" {
		t.Errorf("status = %q (state %q), want done", c.Status, c.State)
	}
	if !strings.Contains(c.Progress, Commentary) || strings.Contains(c.Body, Commentary) {
		t.Errorf("progress %q / body %q: want the commentary %q in the progress only", c.Progress, c.Body, Commentary)
	}
	if c.Body != answerText {
		t.Errorf("body = %q\nwant %q", c.Body, answerText)
	}
	if n := len(d.Model.ModelRequests()); n == 0 {
		t.Error("no model request: the turn never reached Codex")
	}
	// The turn came over the long connection, not the webhook.
	if r := readyz(t, strings.TrimSuffix(d.URL, "/playground")); !strings.Contains(r, `"wecom_aibot":"longconn `) {
		t.Errorf("/readyz = %s, want the AI bot on the long connection", r)
	}
}

func readyz(t *testing.T, base string) string {
	t.Helper()
	resp, err := http.Get(base + "/readyz")
	if err != nil {
		t.Fatalf("GET /readyz: %v", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read /readyz: %v", err)
	}
	return string(b)
}
