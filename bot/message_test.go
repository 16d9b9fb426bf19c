package bot_test

import (
	"testing"

	"github.com/wecodex/wecodex/bot"
)

// The mention forms both WeCom channels receive in a group, with no bot
// name known.
func TestStripMentionWeComForms(t *testing.T) {
	for in, want := range map[string]string{
		"@RobotA hello":        "hello",
		"@RobotA\u2005hello":   "hello",
		"  @RobotA  \n hello ": "hello",
		"@RobotA":              "",
		"hello @RobotA":        "hello @RobotA",
		"":                     "",
		"/new":                 "/new",
		"@机器人 /stop":           "/stop",
		" @A @B hello":         "hello",
		"＠Codex\t/new":         "/new",
		"＠":                    "",
	} {
		if got := bot.StripMention(in, ""); got != want {
			t.Errorf("StripMention(%q, \"\") = %q, want %q", in, got, want)
		}
	}
}
