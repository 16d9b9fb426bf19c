package cards

import (
	"regexp"
	"strconv"
	"strings"

	acp "github.com/coder/acp-go-sdk"
)

// markdown is one progress item as a markdown block ("" for nothing worth
// showing). Frames ask for it many times between changes, so items other
// than growing thoughts keep it ready (see refresh).
func (it *progressItem) markdown() string {
	if it.kind == ItemThought {
		return strings.TrimSpace(it.text.String())
	}
	return it.md
}

// refresh recomputes the markdown of a tool call, plan or notice after it
// changed.
func (it *progressItem) refresh() { it.md = it.render() }

func (it *progressItem) render() string {
	switch it.kind {
	case ItemNotice:
		return noticeIcon(it.level) + " " + it.text.String()
	case ItemTool:
		s := toolIcon(it.status) + " " + it.title
		if it.status == acp.ToolCallStatusFailed {
			s += " (failed)"
		}
		return s
	case ItemPlan:
		if len(it.entries) == 0 {
			return ""
		}
		var b strings.Builder
		b.WriteString("**Plan**")
		for _, e := range it.entries {
			b.WriteString("\n- ")
			b.WriteString(planIcon(e.Status))
			b.WriteByte(' ')
			b.WriteString(OneLine(toValidUTF8(e.Content)))
		}
		return b.String()
	}
	return ""
}

func noticeIcon(level string) string {
	switch level {
	case "error":
		return "❗"
	case "warning":
		return "⚠️"
	default:
		return "ℹ️"
	}
}

func toolIcon(s acp.ToolCallStatus) string {
	switch s {
	case acp.ToolCallStatusCompleted:
		return "✅"
	case acp.ToolCallStatusFailed:
		return "❌"
	case acp.ToolCallStatusInProgress:
		return "🔄"
	default:
		return "⏳"
	}
}

func planIcon(s acp.PlanEntryStatus) string {
	switch s {
	case acp.PlanEntryStatusCompleted:
		return "✅"
	case acp.PlanEntryStatusInProgress:
		return "🔄"
	default:
		return "⬜"
	}
}

// progressShape says how progress text is dressed for a frame.
type progressShape struct {
	quote bool // prefix every line with "> "
	think bool // keep the text from closing the <think> block early
}

// thinkEndAnyCase is every spelling a client's parser may take for the end
// of the <think> block: any case, spaces inside the tag. Progress quotes
// what users asked for (commands, file names), so a user could otherwise
// end the block early and write below it as if the bot did.
var thinkEndAnyCase = regexp.MustCompile(`(?i)<\s*/\s*think\s*>`)

func (p progressShape) dress(s string) string {
	if p.think && strings.Contains(s, "<") {
		s = thinkEndAnyCase.ReplaceAllLiteralString(s, EscapedThinkEnd)
	}
	if p.quote {
		s = "> " + strings.ReplaceAll(s, "\n", "\n> ")
	}
	return s
}

func (p progressShape) sep() string {
	if p.quote {
		return "\n>\n"
	}
	return "\n\n"
}

// workingPlaceholder stands in for an empty progress section while the turn
// runs, so the user sees at once that something happens.
const workingPlaceholder = "⏳ Working…"

// hiddenMarker says that older progress items were trimmed to fit a frame.
func hiddenMarker(n int) string {
	if n == 1 {
		return "_… 1 earlier progress item hidden_"
	}
	return "_… " + strconv.Itoa(n) + " earlier progress items hidden_"
}

// hiddenMarkerMax bounds len(dressed hiddenMarker(n)) for any n.
const hiddenMarkerMax = 64

// progressWithin renders the progress section in at most budget bytes,
// dropping the oldest items first and saying how many were dropped. When even
// the newest item does not fit, its end is kept behind a "…".
// It walks from the newest item back and stops when the budget is spent, so
// its cost is bounded by the budget, not by the turn's length.
func (c *Card) progressWithin(budget int, shape progressShape) string {
	if budget <= 0 {
		return ""
	}
	sep := shape.sep()
	parts := make([]string, 0, 32) // newest first
	used := 0
	i := len(c.progress) - 1
	for ; i >= 0; i-- {
		md := c.progress[i].markdown()
		if md == "" {
			continue
		}
		s := shape.dress(md)
		need := len(s)
		if len(parts) > 0 {
			need += len(sep)
		}
		reserve := 0
		if i > 0 {
			reserve = hiddenMarkerMax + len(sep)
		}
		if used+need+reserve <= budget {
			parts = append(parts, s)
			used += need
			continue
		}
		if len(parts) == 0 {
			// The newest item alone is too big: keep its end.
			if s := tailDressed(md, budget-reserve, shape); s != "" {
				parts = append(parts, s)
				used += len(s)
				i--
			}
		}
		break
	}
	hidden := i + 1 // items i and before were not shown
	if len(parts) == 1 && i < 0 {
		return parts[0]
	}
	var b strings.Builder
	b.Grow(used + hiddenMarkerMax + len(sep))
	if hidden > 0 {
		m := shape.dress(hiddenMarker(hidden))
		if used+len(m)+len(sep) <= budget {
			b.WriteString(m)
			if len(parts) > 0 {
				b.WriteString(sep)
			}
		}
	}
	for k := len(parts) - 1; k >= 0; k-- {
		b.WriteString(parts[k])
		if k > 0 {
			b.WriteString(sep)
		}
	}
	return b.String()
}

// tailDressed keeps the end of md so that, dressed, it fits in room bytes.
func tailDressed(md string, room int, shape progressShape) string {
	const lead = "… "
	for r := room - len(lead) - 8; r > 0; {
		s := shape.dress(lead + tailBytes(md, r))
		if len(s) <= room {
			return s
		}
		// Dressing grew it (quote prefixes, escapes): shrink by the excess.
		r -= len(s) - room
	}
	return ""
}
