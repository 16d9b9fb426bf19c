package wecom

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/cards"
	"github.com/wecodex/wecodex/internal/cardstest"
)

// TestProgressCardGolden renders the recorded turns as the self-built app's
// progress card.
func TestProgressCardGolden(t *testing.T) {
	render := func(t *testing.T, name string, c *cards.Card) {
		js, err := json.MarshalIndent(ProgressCard(c, TemplateCardOptions{Source: "wecodex", URL: "https://example.invalid/turn/1"}), "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		cardstest.Golden(t, name+".appcard.json", string(js)+"\n")
	}
	for _, name := range cardstest.Scenarios {
		t.Run(name, func(t *testing.T) { render(t, name, cardstest.Card(t, name, cards.WithTitle("Fix the parser test"))) })
	}
	t.Run("long", func(t *testing.T) {
		render(t, "long", cardstest.LongCard(cards.WithTitle("Explain the whole change in detail, with code")))
	})
}

func TestTemplateCardButtonsAndLimits(t *testing.T) {
	c := cards.New(cards.WithTitle(strings.Repeat("修", 50)))
	c.Apply(cardstest.Thought("c", strings.Repeat("长", 200)))
	c.SetStatus(cards.WaitingApproval("Run rm -rf build"))
	tc := ProgressCard(c, TemplateCardOptions{TaskID: "turn 42/承认", Buttons: []CardButton{
		{Text: "Approve", Style: 1, Key: "approve"}, {Text: "Decline this one please", Style: 2, Key: "decline"},
	}})
	checkTemplateCard(t, tc)
	if tc.CardType != "button_interaction" || tc.TaskID != "turn_42_______" {
		t.Fatalf("card type %q task id %q", tc.CardType, tc.TaskID)
	}
	if tc.MainTitle.Title != strings.Repeat("修", 35)+"…" || tc.MainTitle.Desc != "Waiting for approval" {
		t.Fatalf("main title %+v", tc.MainTitle)
	}
	if tc.SubTitleText != "Run rm -rf build" {
		t.Fatalf("sub title %q", tc.SubTitleText)
	}
	if tc.ButtonList[1].Text != "Decline t…" {
		t.Fatalf("button text %q", tc.ButtonList[1].Text)
	}
}

func checkTemplateCard(t *testing.T, tc TemplateCard) {
	t.Helper()
	check := func(field, v string, maxRunes int) {
		if n := utf8.RuneCountInString(v); n > maxRunes || !utf8.ValidString(v) {
			t.Fatalf("%s has %d characters, limit %d: %q", field, n, maxRunes, v)
		}
	}
	check("main_title.title", tc.MainTitle.Title, cardTitleMax)
	check("main_title.desc", tc.MainTitle.Desc, cardTitleDescMax)
	check("sub_title_text", tc.SubTitleText, cardSubTitleMax)
	if len(tc.HorizontalContentList) > cardHorizontalMax || len(tc.ButtonList) > cardButtonsMax {
		t.Fatalf("too many rows or buttons")
	}
	for _, r := range tc.HorizontalContentList {
		check("keyname", r.Keyname, cardKeynameMax)
		check("value", r.Value, cardValueMax)
	}
	for _, b := range tc.ButtonList {
		check("button text", b.Text, cardButtonTextMax)
	}
	if _, err := json.Marshal(tc); err != nil {
		t.Fatal(err)
	}
}

// FuzzProgressCard: whatever the user and the agent wrote, every field of
// the turn's card stays within WeCom's limits. (Its options are the bot's
// own words.)
func FuzzProgressCard(f *testing.F) {
	f.Add("Fix the parser", "Reading the code.", "Run ls", "The answer.", "boom")
	f.Add(strings.Repeat("修", 50), strings.Repeat("长", 200), "\xff\xfe", "```go\n", "")
	f.Fuzz(func(t *testing.T, title, thought, tool, answer, failure string) {
		c := cards.New(cards.WithTitle(title))
		c.Apply(cardstest.Thought("t", thought))
		c.Apply(acp.StartToolCall("call_1", tool, acp.WithStartStatus(acp.ToolCallStatusFailed)))
		c.Apply(acp.UpdatePlan(acp.PlanEntry{Content: tool, Status: acp.PlanEntryStatusCompleted}))
		c.Apply(cardstest.Msg("a", answer))
		c.Notice("error", failure)
		checkTemplateCard(t, ProgressCard(c, TemplateCardOptions{Source: "wecodex", TaskID: "task 1/2", Buttons: []CardButton{{Text: "Cancel this turn now", Key: "cancel"}}}))
		c.SetStatus(cards.Status{State: cards.StateFailed, Detail: failure})
		checkTemplateCard(t, ProgressCard(c, TemplateCardOptions{Source: "wecodex", URL: "https://example.invalid/t/1"}))
	})
}

// BenchmarkProgressCard is the self-built app's progress path: apply every
// delta of a long turn, rendering the progress card every 50 updates (the
// bot sends only some of them, within WeCom's rate limit).
func BenchmarkProgressCard(b *testing.B) {
	us := cardstest.LongTurn()
	b.ReportAllocs()
	var rendered int
	for b.Loop() {
		rendered = 0
		c := cards.New(cards.WithTitle("Fix the parser"))
		for i, u := range us {
			c.Apply(u)
			if i%50 == 49 {
				rendered += len(ProgressCard(c, TemplateCardOptions{URL: "https://example.invalid/t/1"}).SubTitleText)
			}
		}
	}
	b.ReportMetric(float64(rendered), "bytes-rendered/turn")
}
