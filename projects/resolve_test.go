package projects

import (
	"testing"
)

func TestResolveTakesTheFirstThatNamesTheChatOrUserElseTheDefault(t *testing.T) {
	r, err := New([]Project{
		{Name: "api", Path: "/srv/api", Users: []string{"alice"}},
		{Name: "web", Path: "/srv/web", Chats: []string{"wrkChat1"}, Users: []string{"alice", "bob"}},
		{Name: "misc", Path: "/srv/misc", Default: true},
	}, Options{WorkspaceRoot: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ chat, user, want string }{
		{"", "alice", "api"},         // first project naming alice
		{"", "bob", "web"},           // only web names bob
		{"wrkChat1", "carol", "web"}, // the group's chat
		{"wrkChat1", "alice", "api"}, // api comes first and names alice
		{"", "carol", "misc"},        // no one names carol: the default
		{"wrkOther", "dave", "misc"}, // nor this chat
	} {
		p, ok := r.Resolve(c.chat, c.user)
		if !ok || p.Name != c.want {
			t.Errorf("Resolve(%q, %q) = %q, %v; want %q", c.chat, c.user, p.Name, ok, c.want)
		}
	}

	none, err := New([]Project{{Name: "api", Path: "/srv/api", Users: []string{"alice"}}}, Options{WorkspaceRoot: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if p, ok := none.Resolve("", "bob"); ok {
		t.Errorf("Resolve without a default = %q; want none", p.Name)
	}
}

func TestNewRefusesWhatConfigsWouldHaveRefused(t *testing.T) {
	for _, c := range []struct {
		list []Project
		want string
	}{
		{[]Project{{Name: "a", Path: "/x"}, {Name: "a", Path: "/y"}}, `projects: "a" is defined twice`},
		{[]Project{{Name: "a"}}, "projects: a needs exactly one of path and git"},
		{[]Project{{Name: "a", Path: "/x", Git: "/g"}}, "projects: a needs exactly one of path and git"},
		{[]Project{{Name: "../a", Path: "/x"}}, `projects: "../a" is not a valid project name`},
		{[]Project{{Name: "a", Path: "/x", Default: true}, {Name: "b", Path: "/y", Default: true}}, "projects: more than one default project"},
	} {
		_, err := New(c.list, Options{WorkspaceRoot: t.TempDir(), StateDir: t.TempDir()})
		if err == nil || err.Error() != c.want {
			t.Errorf("New(%+v) = %v; want %s", c.list, err, c.want)
		}
	}
}

func TestConversationIDIsOnePathElementAndARefName(t *testing.T) {
	for _, c := range []struct{ key, want string }{
		{"plain_id", "plain_id"},
		{"group:wrkChat1", "group_wrkChat1-"},
		{"single:../../x", "single_______x-"},
		{"-lead", "_lead-"},
	} {
		got := ConversationID(c.key)
		if len(got) < len(c.want) || got[:len(c.want)] != c.want {
			t.Errorf("ConversationID(%q) = %q; want it to start %q", c.key, got, c.want)
		}
		if c.want != c.key && len(got) != len(c.want)+12 {
			t.Errorf("ConversationID(%q) = %q; want a 12-digit hash after the name", c.key, got)
		}
		gitT(t, t.TempDir(), "check-ref-format", "refs/heads/"+Branch(c.key))
	}
	if ConversationID("group:a.b") == ConversationID("group:a_b") {
		t.Error("two keys share an id")
	}
}
