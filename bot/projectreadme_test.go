package bot

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/wecodex/wecodex/projects"
)

// readmeProjects are the README's worked example's projects as /project
// sees them in the wrkApi group: api names the group, scratch is the
// default. What the transcript does not reach is left nil.
type readmeProjects struct{ Projects }

func (readmeProjects) Names() []string { return []string{"api", "scratch"} }
func (readmeProjects) MayUse(project, chat, _ string) bool {
	return project == "scratch" || chat == "wrkApi"
}

// The README's projects transcript quotes each command's answer as the bot
// gives it, and the group's branch by its real name.
func TestReadmeProjectsTranscript(t *testing.T) {
	said := readmeTranscript(t)
	group := Conversation{Kind: "group", ID: "wrkApi", Group: true}
	in := &intake{cfg: Config{Projects: readmeProjects{}}}
	// The patch is git's (made from the example's server.go); the rest of
	// the answer is the bot's.
	_, patch, _ := strings.Cut(said["/diff"], "```diff\n")
	patch = strings.TrimSuffix(patch, "\n```")
	want := map[string]string{
		"/project": in.listProjects(group, "alice", "api"),
		"/diff": diffSummary("api", ProjectChanges{Branch: projects.Branch(group.Key()),
			Files: []FileChange{{Path: "server.go", Added: 3}}, Patch: patch}, diffBudget),
		"/reset":           fmt.Sprintf(textResetAsk, "api"),
		"/reset yes":       fmt.Sprintf(textResetDone, "api"),
		"/project scratch": fmt.Sprintf(textProjectSwitched, "scratch"),
	}
	for cmd, w := range want {
		if got, ok := said[cmd]; !ok || got != w {
			t.Errorf("the README's answer to %s:\n%s\nthe bot's:\n%s", cmd, got, w)
		}
	}
}

// readmeTranscript is the README's projects transcript: each command alice
// sends, with the answer the README quotes (its lines unindented).
func readmeTranscript(t *testing.T) map[string]string {
	t.Helper()
	raw, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(raw), "In the `wrkApi` group it goes like this")
	if ok {
		_, block, ok = strings.Cut(block, "````\n")
	}
	if ok {
		block, _, ok = strings.Cut(block, "\n````")
	}
	if !ok {
		t.Fatal("README.md has no projects transcript (\"In the `wrkApi` group it goes like this\", then a ```` block)")
	}
	said := map[string]string{}
	var cmd string
	var answer []string
	flush := func() {
		if strings.HasPrefix(cmd, "/") {
			said[cmd] = strings.Join(answer, "\n")
		}
	}
	const indent = "       "
	for _, l := range strings.Split(block, "\n") {
		switch {
		case strings.HasPrefix(l, "alice: "):
			flush()
			cmd, answer = strings.TrimPrefix(l, "alice: "), nil
		case strings.HasPrefix(l, "bot:"+indent[4:]):
			answer = append(answer, strings.TrimPrefix(l, "bot:"+indent[4:]))
		default:
			answer = append(answer, strings.TrimPrefix(l, indent))
		}
	}
	flush()
	return said
}
