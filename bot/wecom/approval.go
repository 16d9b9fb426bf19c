package wecom

import "github.com/wecodex/wecodex/bot"

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
