package wecom

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/wecodex/wecodex/bot"
)

// The approval-button codec every WeCom channel with buttons speaks (the AI
// bot's long connection, the self-built app). A button's key is
// "appr:<id>:<verb>"; the card that replaces a clicked one has a single
// button with verb "done", which decides nothing when clicked again.
const (
	approvalKeyPrefix = "appr:"
	verbDone          = "done"
)

// approvalVerbs are the verbs that decide, in the order the ask card shows
// them.
var approvalVerbs = []struct {
	verb    string
	verdict bot.Verdict
	text    string
	style   int
}{
	{"approve", bot.VerdictApprove, "Approve", 1},
	{"always", bot.VerdictAlways, "Always", 2},
	{"deny", bot.VerdictDeny, "Deny", 3},
}

// CardFields are the field limits, in characters, of one flavour of
// template card where the two differ.
type CardFields struct {
	SubTitle   int // sub_title_text
	ButtonText int // button_list.text
}

var (
	// AppCard is the self-built app's card (message/send, document/path/90236).
	AppCard = CardFields{SubTitle: cardSubTitleMax, ButtonText: cardButtonTextMax}
	// BotCard is the AI bot's card (WECOM-PROTOCOL.md §A.8): sub_title_text
	// ≲ 112. The answer card's one button repeats its title, as WeCom's own
	// sample does, so it is held to the title's ≲ 26 rather than ≲ 10.
	BotCard = CardFields{SubTitle: 112, ButtonText: 26}
)

// ApprovalClick is what a click on an approval card's button asks.
type ApprovalClick struct {
	ID int64
	// Verdict is what the button decides; Decides is false for a button
	// that decides nothing (a replaced card's, or an unknown verb).
	Verdict bot.Verdict
	Decides bool
}

// ParseApprovalKey reads a button's key; ok is false when the key is not an
// approval button's.
func ParseApprovalKey(key string) (c ApprovalClick, ok bool) {
	rest, ok := strings.CutPrefix(key, approvalKeyPrefix)
	idText, verb, _ := strings.Cut(rest, ":")
	id, err := strconv.ParseInt(idText, 10, 64)
	if !ok || err != nil || id <= 0 {
		return ApprovalClick{}, false
	}
	c.ID = id
	for _, v := range approvalVerbs {
		if v.verb == verb {
			c.Verdict, c.Decides = v.verdict, true
		}
	}
	return c, true
}

func approvalKey(id int64, verb string) string {
	return approvalKeyPrefix + strconv.FormatInt(id, 10) + ":" + verb
}

// ApprovalAskCard is the card that asks for a decision on a, with one
// button per verdict. Its task_id is new each time: WeCom refuses a repeated
// one.
func ApprovalAskCard(a bot.ApprovalAsk, f CardFields) TemplateCard {
	id := strconv.FormatInt(a.ID, 10)
	tc := TemplateCard{
		CardType:     "button_interaction",
		Source:       &CardSource{Desc: "wecodex"},
		MainTitle:    CardMainTitle{Title: "Codex asks #" + id, Desc: "for " + a.For},
		SubTitleText: CutRunes(a.What, f.SubTitle),
		TaskID:       "wxappr_" + id + "_" + RandomHex(6),
	}
	for _, v := range approvalVerbs {
		tc.ButtonList = append(tc.ButtonList, CardButton{Text: v.text, Style: v.style, Key: approvalKey(a.ID, v.verb)})
	}
	return tc
}

// ApprovalAnswerCard is the card that replaces the clicked one (taskID is
// the clicked card's): how the click was taken, what it did, and one button
// that decides nothing. r is the decision the click made, nil when its
// button decides nothing. A clicker who may not decide gets "OK" on the
// button; a channel that can show the answer to the clicker alone does, so
// the requester keeps the buttons.
func ApprovalAnswerCard(c ApprovalClick, r *bot.Decided, taskID string, f CardFields) TemplateCard {
	title, text, button := "Decided", fmt.Sprintf("#%d was decided already.", c.ID), ""
	if r != nil {
		title, text = ApprovalTitle(*r), r.Text
		if r.Outcome == bot.NotYours {
			button = "OK"
		}
	}
	if button == "" {
		button = title
	}
	return TemplateCard{
		CardType:     "button_interaction",
		MainTitle:    CardMainTitle{Title: title},
		SubTitleText: CutRunes(text, f.SubTitle),
		ButtonList:   []CardButton{{Text: CutRunes(button, f.ButtonText), Style: 4, Key: approvalKey(c.ID, verbDone)}},
		TaskID:       taskID,
	}
}

// ApprovalTitle is the title of the card that replaces a clicked approval
// card: how the click was taken, in WeCom's ~26 characters. Every WeCom
// channel with buttons shows the same words.
func ApprovalTitle(r bot.Decided) string {
	switch r.Outcome {
	case bot.NotYours:
		return "Not yours to decide"
	case bot.NothingDecided:
		return "Not waiting"
	}
	switch r.Decision.Verdict {
	case bot.VerdictApprove, bot.VerdictAlways:
		return "Approved by " + r.Decision.By
	case bot.VerdictDeny:
		return "Declined by " + r.Decision.By
	case bot.VerdictTimeout:
		return "Timed out"
	}
	return "Cancelled"
}

// CutRunes keeps s within n characters (WeCom counts characters in card
// fields), ending a cut one with "…".
func CutRunes(s string, n int) string {
	if n <= 0 {
		return ""
	}
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
