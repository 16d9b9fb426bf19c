package cards

import "strings"

// Markdown renders the answer as markdown messages of at most maxBytes bytes
// each (a platform's cap on one message; below a small minimum it is raised
// to it), cut by SplitMarkdown. A finished turn without answer text gets its last
// commentary, marked as such; a cancelled or failed turn ends with its status
// line. It returns nil while there is nothing to send.
func (c *Card) Markdown(maxBytes int) []string {
	text := c.Body()
	if strings.TrimSpace(text) == "" {
		text = ""
		if c.status.State == StateDone {
			text = c.emptyAnswer(maxBytes)
		}
	}
	if c.status.Terminal() {
		if s := c.footed(c.statusMarkdown()); s != "" {
			if text != "" {
				if sp := scanFences(text).open(); sp != nil && decoratable(*sp) {
					text += closeFence(*sp, strings.HasSuffix(text, "\n"))
				}
				text += "\n\n"
			}
			text += s
		}
	}
	if text != "" {
		text = c.headed(text)
	}
	var out []string
	for _, p := range SplitMarkdown(text, maxBytes) {
		if strings.TrimSpace(p) != "" {
			out = append(out, p)
		}
	}
	return out
}
