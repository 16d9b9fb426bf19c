package wecom

import (
	"testing"

	"github.com/wecodex/wecodex/bot"
)

// The keys are the ones Redis state was written under: a change of format
// loses every session, queue and workspace, and lets a group share a user's.
func TestConversationKeys(t *testing.T) {
	for _, tc := range []struct {
		c     bot.Conversation
		key   string
		group bool
	}{
		{SingleChat("alice"), "single:alice", false},
		{GroupChat("wrkChat1"), "group:wrkChat1", true},
		{AppChat("alice"), "app:alice", false},
		{ChatOf(ChatGroup, "wrkChat1", "alice"), "group:wrkChat1", true},
		{ChatOf(ChatSingle, "", "alice"), "single:alice", false},
	} {
		if tc.c.Key() != tc.key || tc.c.Group != tc.group {
			t.Errorf("%#v: key %q group %v, want %q %v", tc.c, tc.c.Key(), tc.c.Group, tc.key, tc.group)
		}
	}
	if SingleChat("x").Key() == GroupChat("x").Key() || SingleChat("x").Key() == AppChat("x").Key() {
		t.Error("a user, a group and an app chat with one id share a key")
	}
}
