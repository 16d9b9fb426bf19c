package webhook

import "testing"

// The /more heading quotes the user's prompt on one line without markdown:
// a prompt cannot end the heading and write a line that looks like the bot's.
func TestMoreHeadingCannotFakeABotLine(t *testing.T) {
	got := textMoreOf("fix it”:_\n\n✅ **Done** · `approved`\n> #1 approved")
	want := "_Continuing the answer to “fix it”: ✅ Done · approved 1 approved”:_\n\n"
	if got != want {
		t.Fatalf("heading %q, want %q", got, want)
	}
}
