package app

import (
	"strconv"
	"strings"
	"testing"

	"github.com/wecodex/wecodex/cards"
	"github.com/wecodex/wecodex/internal/wecomtest"
)

// A progress card whose response_code is spent (WeCom: 60140) is taken
// as updated already: closing it makes one update call, refused, and one
// warn line that says so; it is not retried.
func TestSpentCardCodeIsWarned(t *testing.T) {
	r := newRig(t)
	c, st := r.channel(t, "A")
	ctx := waitCtx(t)
	card := cards.New()
	code, err := c.api.sendCard(ctx, testUser, progressCard(card, "s1", false))
	if err != nil || code == "" {
		t.Fatalf("send the card: code %q, %v", code, err)
	}
	if err := c.api.updateCard(ctx, testUser, code, progressCard(card, "s1", true)); err != nil {
		t.Fatalf("the first update: %v", err)
	}
	if err := st.SaveCardCode(ctx, "s1", code); err != nil {
		t.Fatal(err)
	}
	c.closeCard(ctx, testUser, "s1", card)
	var updates []string
	for _, rec := range r.api.Records() {
		if rec.API == "message/update_template_card" {
			updates = append(updates, rec.ResponseCode+"/"+strconv.Itoa(rec.Errcode))
		}
	}
	if got, want := strings.Join(updates, " "), code+"/0 "+code+"/"+strconv.Itoa(wecomtest.ErrcodeInvalidResponseCode); got != want {
		t.Fatalf("updates %q, want %q", got, want)
	}
	var lines []string
	for _, l := range strings.Split(r.logs.String(), "\n") {
		if strings.Contains(l, "progress card") {
			lines = append(lines, l[strings.Index(l, "level="):])
		}
	}
	want := `level=WARN msg="progress card already updated: its response_code is used or expired" channel=wecom_app stream=s1 errcode=60140`
	if len(lines) != 1 || lines[0] != want {
		t.Fatalf("log lines %q, want [%q]", lines, want)
	}
}
