package webhook

import (
	"bytes"
	"fmt"
	"log/slog"
	"slices"
	"testing"

	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/bot/wecom"
	"github.com/wecodex/wecodex/cards"
)

// cardOnly is a turn's card control that only runs f on a card.
type cardOnly struct{ c *cards.Card }

func (k cardOnly) Do(f func(*cards.Card)) { f(k.c) }
func (cardOnly) Refresh()                 {}

// A picture the final frame cannot carry says why, without pointing to
// /file (which cannot send it on the webhook either): the eleventh, one over
// 10 MB, or any once the stream window closed. Other files are named with
// /file.
func TestPicturesTheFrameCannotCarrySayWhy(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDRpic")
	var files []bot.OutFile
	for i := range wecom.MaxMsgItems + 1 {
		files = append(files, bot.OutFile{Name: fmt.Sprintf("p%d.png", i), Image: true, Data: png})
	}
	files = append(files,
		bot.OutFile{Name: "huge.png", Image: true, Data: append(bytes.Clone(png), make([]byte, wecom.MaxMsgItemBytes)...)},
		bot.OutFile{Name: "report.pdf", Data: []byte("%PDF-1.4")})
	s := &stream{log: slog.New(slog.DiscardHandler), pub: cardOnly{cards.New()}}
	notes := s.SendFiles(t.Context(), files)
	want := slices.Repeat([]string{"shown with the answer"}, wecom.MaxMsgItems)
	want = append(want, "not shown: a reply shows at most 10 pictures", "not shown: it is over the 10 MB a picture in a reply may have",
		"kept in the workspace: WeCom's webhook bot can send pictures only (`/file report.pdf` says how to get it)")
	// huge.png is the twelfth: its size is its reason, before the count.
	if !slices.Equal(notes, want) {
		t.Errorf("notes:\n%q\nwant\n%q", notes, want)
	}

	s = &stream{log: slog.New(slog.DiscardHandler), pub: cardOnly{cards.New()}, windowClosed: true}
	if notes := s.SendFiles(t.Context(), files[:1]); !slices.Equal(notes, []string{"not shown: the reply's stream window had closed, and WeCom's webhook bot shows pictures only in it"}) {
		t.Errorf("after the window closed: %q", notes)
	}
	if p := s.items.Load(); p != nil && *p != "" {
		t.Errorf("a frame after the window closed carries pictures")
	}
}
