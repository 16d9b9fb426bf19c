package bot

import (
	"fmt"
	"strings"
)

// What the project commands answer.
const (
	textNoProjects        = "No projects are configured here: every conversation works in its own empty directory."
	textNoProject         = "This conversation works in no project (its own empty directory), so there are no project changes here. `/project` lists the projects open to it."
	textNoUsableProject   = "No project is open to this conversation: it works in its own empty directory."
	textProjectSwitchHint = "Switch with `/project <name>`: the next message starts a fresh session there."
	// textProjectNotAllowed names the project twice: what was refused and
	// the key an admin changes.
	textProjectNotAllowed = "You may not use project `%s` here: it is bound to other chats and users. An admin can add this chat or you to projects.%s."
	textProjectSwitched   = "OK — this conversation now works in `%s`. The next message starts a fresh session there."
	textNotGitProject     = "Project `%s` is a shared checkout (a path), not a git project: this conversation has no changes of its own there."
	textResetAsk          = "This discards every change this conversation made in `%s` (its branch's commits, edits and new files) and cannot be undone. Send `/reset yes` to do it."
	textResetBusy         = "A turn is running here: `/reset yes` once it has ended (or `/stop` it first)."
	textResetDone         = "OK — `%s` is back at the project's ref: every change of this conversation there is gone."
)

// diffBudget bounds /diff's answer: the smallest reply WeCom shows whole,
// the self-built app's 2,048-byte markdown message, less a margin for the
// channel's own framing.
const diffBudget = 1900

// diffPatchLines is how many first lines of the patch /diff shows.
const diffPatchLines = 12

// diffSummary is /diff's answer within budget bytes: the totals, a line
// per file, then the patch's first lines; what does not fit is counted,
// not cut mid-line.
func diffSummary(project string, c ProjectChanges, budget int) string {
	added, deleted := 0, 0
	for _, f := range c.Files {
		added, deleted = added+f.Added, deleted+f.Deleted
	}
	var b strings.Builder
	fmt.Fprintf(&b, "**Changes in `%s` on `%s`** against the project's ref: %s, +%d −%d\n", project, c.Branch, plural(len(c.Files), "file"), added, deleted)
	for i, f := range c.Files {
		line := "- " + fileLine(f) + "\n"
		if b.Len()+len(line) > budget/2 {
			fmt.Fprintf(&b, "- … and %s\n", plural(len(c.Files)-i, "more file"))
			break
		}
		b.WriteString(line)
	}
	patch := patchHead(c.Patch, diffPatchLines, budget-b.Len()-len("\n```diff\n\n```"))
	if patch != "" {
		b.WriteString("\n```diff\n" + patch + "\n```")
	}
	return strings.TrimRight(b.String(), "\n")
}

func fileLine(f FileChange) string {
	s := "`" + f.Path + "`"
	switch {
	case f.Binary:
		s += " binary"
	default:
		s += fmt.Sprintf(" +%d −%d", f.Added, f.Deleted)
	}
	if f.New {
		s += " (new)"
	}
	return s
}

// patchHead is the first n lines of patch, each at most 160 bytes, as many
// as fit in budget, and a last line saying how many more there are.
func patchHead(patch string, n, budget int) string {
	lines := strings.Split(strings.Trim(patch, "\n"), "\n")
	if patch == "" {
		return ""
	}
	var out []string
	size := 0
	for i, l := range lines {
		if len(l) > 160 {
			l = strings.ToValidUTF8(l[:160], "") + "…"
		}
		more := fmt.Sprintf("… %s more", plural(len(lines)-i, "line"))
		if i == n || size+len(l)+1+len(more) > budget {
			if size+len(more) > budget {
				break
			}
			out = append(out, more)
			break
		}
		out = append(out, l)
		size += len(l) + 1
	}
	return strings.Join(out, "\n")
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
