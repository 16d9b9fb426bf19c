package bot

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// regexpMore is the line counting the files /diff leaves out.
var regexpMore = regexp.MustCompile(`\n- … and \d+ more files\n`)

// /diff's answer keeps to the channel's limit: the patch's first 12 lines,
// the rest counted; a line longer than 160 bytes cut; files past half the
// budget counted, not listed; binary and new files marked.
func TestDiffSummaryKeepsToTheBudget(t *testing.T) {
	var patch []string
	for i := range 20 {
		patch = append(patch, fmt.Sprintf("+line %d", i))
	}
	c := ProjectChanges{Branch: "wecodex/b", Files: []FileChange{
		{Path: "a.go", Added: 18, Deleted: 2}, {Path: "logo.png", Binary: true, New: true},
	}, Patch: strings.Join(patch, "\n")}
	want := "**Changes in `api` on `wecodex/b`** against the project's ref: 2 files, +18 −2\n" +
		"- `a.go` +18 −2\n- `logo.png` binary (new)\n\n```diff\n" +
		strings.Join(patch[:12], "\n") + "\n… 8 lines more\n```"
	if got := diffSummary("api", c, diffBudget); got != want {
		t.Errorf("a 20-line patch:\n%s\nwant\n%s", got, want)
	}

	long := "+" + strings.Repeat("x", 300)
	if got := diffSummary("api", ProjectChanges{Branch: "b", Files: []FileChange{{Path: "x", Added: 1}}, Patch: long}, diffBudget); !strings.Contains(got, "\n+"+strings.Repeat("x", 159)+"…\n```") {
		t.Errorf("a 301-byte line is not cut at 160 bytes:\n%s", got)
	}

	var many []FileChange
	var lines []string
	for i := range 300 {
		many = append(many, FileChange{Path: fmt.Sprintf("internal/some/deep/package/file%03d.go", i), Added: 1})
		lines = append(lines, "+"+strings.Repeat("y", 150))
	}
	got := diffSummary("api", ProjectChanges{Branch: "b", Files: many, Patch: strings.Join(lines, "\n")}, diffBudget)
	if len(got) > diffBudget {
		t.Errorf("300 files: %d bytes, over the %d budget", len(got), diffBudget)
	}
	if !strings.Contains(got, "files, +300 −0\n") || !regexpMore.MatchString(got) || !strings.HasSuffix(got, " lines more\n```") {
		t.Errorf("300 files: the totals, a count of the files left out and of the lines left out are missing:\n%s", got)
	}
}
