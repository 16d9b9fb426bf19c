package main

import (
	"fmt"
	"path/filepath"
	"testing"
)

// check-config names each mistake in projects: with its key: errors for a
// missing path, a name given twice and a second default, warnings (with
// git's reason) for a remote that does not answer and for users and chats
// no access list names.
func TestCheckConfigProjects(t *testing.T) {
	bare := gitRemote(t)
	gone := filepath.Join(t.TempDir(), "gone.git")
	missing := filepath.Join(t.TempDir(), "checkout")
	access := "access:\n  allow_users: [alice]\n  allow_chats: [wrkChat1]\n"
	for _, tc := range []struct {
		name, yaml string
		code       int
		stdout     string
		stderr     string
	}{
		{"a project that holds", access + fmt.Sprintf("projects:\n  api:\n    git: %s\n    users: [alice]\n    chats: [wrkChat1]\n", bare), 0, "config OK\n", ""},
		{"missing path", access + "projects:\n  api:\n    path: " + missing + "\n", 1, "",
			"error: projects.api.path: " + missing + " does not exist on this machine (no such file or directory); check out the project there, or use git: to let wecodex clone it\n"},
		{"duplicate name", access + "projects:\n  api:\n    git: " + bare + "\n  api:\n    git: " + bare + "\n", 1, "",
			"error: projects.api: is defined twice (lines 5 and 7); give each project its own name\n"},
		{"more than one default", access + "projects:\n  api:\n    git: " + bare + "\n    default: true\n  web:\n    git: " + bare + "\n    default: true\n", 1, "",
			"error: projects.web.default: only one project may be the default; api already is\n"},
		{"unreachable remote", access + "projects:\n  api:\n    git: " + gone + "\n", 0, "config OK\n",
			"warning: projects.api.git: cannot reach " + gone + ": git ls-remote: fatal: '" + gone + "' does not appear to be a git repository\n"},
		{"users and chats no access list names", access + fmt.Sprintf("projects:\n  api:\n    git: %s\n    users: [alice, bob]\n    chats: [wrkChat1, wrkChat2]\n", bare), 0, "config OK\n",
			"warning: projects.api.users[1]: bob is named by no access list (access.allow_users, access.admins): they reach the bot only in a group access.allow_chats opens; add them there or remove them here\n" +
				"warning: projects.api.chats[1]: wrkChat2 is not in access.allow_chats: only members allowed on their own can use the bot there; add it there or remove it here\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeConfig(t, tc.yaml)
			r := runBin(t, "check-config", "--config", p)
			want := tc.stderr
			if tc.code != 0 {
				want += p + ": config has errors\n"
			}
			if got := withoutStartWarnings(r.stderr); r.code != tc.code || r.stdout != tc.stdout || got != want {
				t.Fatalf("exit %d, stdout %q, stderr:\n%s\nwant exit %d, stdout %q, stderr:\n%s", r.code, r.stdout, got, tc.code, tc.stdout, want)
			}
		})
	}
}
