package webhook

import (
	"fmt"
	"strings"
)

// What the webhook channel says on a card.
const textMoreHint = "Send `/more` for the next part of the answer."

// textMoreOf heads a /more part with the prompt it answers. The prompt is the
// user's own text: folded onto one line and stripped of markdown marks, so
// it cannot end the heading and write a line that looks like the bot's.
func textMoreOf(prompt string) string {
	return fmt.Sprintf("_Continuing the answer to “%s”:_\n\n", plainLine(prompt))
}

// plainLine is s on one line without the characters WeCom's markdown gives
// a meaning (emphasis, code, links, quotes, headings, tags).
func plainLine(s string) string {
	s = strings.Map(func(r rune) rune {
		if strings.ContainsRune("*_`~[]<>#|\\", r) {
			return ' '
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}
