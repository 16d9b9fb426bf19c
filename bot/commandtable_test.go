package bot

import (
	"strings"
	"testing"
)

// Every command has one /help line that starts with its own name, and no
// word names two commands.
func TestCommandTableHelpLines(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range chatCommands() {
		if len(c.names) == 0 || c.run == nil {
			t.Fatalf("command %+v has no name or no handler", c.names)
		}
		if !strings.HasPrefix(c.help, "`"+c.names[0]) || strings.Contains(c.help, "\n") {
			t.Errorf("%s: help %q is not one line starting with the command", c.names[0], c.help)
		}
		for _, n := range c.names {
			if seen[n] || n != strings.ToLower(n) || !strings.HasPrefix(n, "/") {
				t.Errorf("%q: named twice or not a lower-case slash word", n)
			}
			seen[n] = true
			if _, word, ok := lookupCommand(strings.ToUpper(n) + " x"); !ok || word != n {
				t.Errorf("lookupCommand(%q) = %q, %v", strings.ToUpper(n)+" x", word, ok)
			}
		}
	}
	if _, _, ok := lookupCommand("/unknown x"); ok {
		t.Error("an unknown slash word is a command; it should go to the agent")
	}
}

// /help lists each command shown here once, the project ones only where
// projects are configured.
func TestHelpListsShownCommands(t *testing.T) {
	in := &intake{}
	got := in.help()
	for _, c := range chatCommands() {
		want := "- " + c.help + "\n"
		if has := strings.Count(got, want); has != map[bool]int{true: 0, false: 1}[c.shown != nil] {
			t.Errorf("/help without projects has %q %d times:\n%s", want, has, got)
		}
	}
	if !strings.HasPrefix(got, "**Commands**\n- `/new`") || !strings.HasSuffix(got, "\n\n"+textHelpTail) {
		t.Errorf("/help = %q", got)
	}
}
