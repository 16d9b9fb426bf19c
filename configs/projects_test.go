package configs

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestProjectsKeepTheFileOrderAndEveryKey(t *testing.T) {
	cfg, warns, err := Check(writeConfig(t, `
projects:
  idle_cleanup: 48h
  web:
    git: /srv/git/web.git
    ref: main
    chats: [wrkChat1]
    group_sessions: per_user
    limits:
      turns_per_user_per_hour: 0
  api:
    path: /
    users: [alice, bob]
    default: true
    model: gpt-5
    effort: high
    approval: allow
    approvers: [carol]
    sandbox:
      read: [/opt/go]
    instructions: |
      Run make test.
    limits:
      tokens_per_user_per_day: 50000
`))
	if err != nil || len(warns) != 0 {
		t.Fatalf("Check: %v, warnings %v", err, warns)
	}
	noTurnLimit, tokens := 0, int64(50000)
	want := []ProjectConfig{
		{Name: "web", Line: 4, Git: "/srv/git/web.git", Ref: "main", Chats: []string{"wrkChat1"}, GroupSessions: GroupSessionsPerUser,
			Limits: ProjectLimits{TurnsPerUserPerHour: &noTurnLimit}},
		{Name: "api", Line: 11, Path: "/", Users: []string{"alice", "bob"}, Default: true, Model: "gpt-5", Effort: "high",
			Approval: ApprovalAllow, Approvers: []string{"carol"}, Sandbox: ProjectSandbox{Read: []string{"/opt/go"}}, Instructions: "Run make test.\n",
			Limits: ProjectLimits{TokensPerUserPerDay: &tokens}},
	}
	if !reflect.DeepEqual(cfg.Projects.List, want) {
		t.Errorf("projects:\n got %+v\nwant %+v", cfg.Projects.List, want)
	}
	if cfg.Projects.IdleCleanup != 48*time.Hour {
		t.Errorf("idle_cleanup = %s", cfg.Projects.IdleCleanup)
	}
	if d := Default().Projects.IdleCleanup; d != 30*24*time.Hour {
		t.Errorf("idle_cleanup default = %s", d)
	}
}

// Each mistake in projects: is named with its key.
func TestProjectProblemsNameTheirKey(t *testing.T) {
	for _, c := range []struct{ yaml, want string }{
		{"projects:\n  api: {}", "projects.api: needs path (an existing checkout on every replica) or git (a repository URL to clone)"},
		{"projects:\n  api: {path: /, git: /g}", "projects.api.path: and git are both set; a project is either an existing checkout (path) or a repository to clone (git)"},
		{"projects:\n  api: {path: rel/dir}", `projects.api.path: must be an absolute path like /srv/checkouts/api, not "rel/dir"`},
		{"projects:\n  api: {path: /, ref: main}", "projects.api.ref: needs git: a path project works in its checkout as it is"},
		{"projects:\n  api: {path: /nonexistent/api}", "projects.api.path: /nonexistent/api does not exist on this machine (no such file or directory); check out the project there, or use git: to let wecodex clone it"},
		{"projects:\n  api: {path: /etc/passwd}", "projects.api.path: /etc/passwd is not a directory"},
		{"projects:\n  api: {git: /g, ref: 'a..b'}", `projects.api.ref: is not a git branch, tag or commit name: "a..b"`},
		{"projects:\n  api: {path: /, default: true}\n  web: {path: /tmp, default: true}", "projects.web.default: only one project may be the default; api already is"},
		{"projects:\n  api: {path: /}\n  API: {path: /tmp}", "projects.API: is defined twice (lines 2 and 3); give each project its own name"},
		{"projects:\n  api: {path: /}\n  api: {path: /tmp}", "projects.api: is defined twice (lines 2 and 3); give each project its own name"},
		{"projects:\n  api: {path: /, effort: huge}", `projects.api.effort: must be one of none, minimal, low, medium, high, xhigh, not "huge"`},
		{"projects:\n  api: {path: /, approval: maybe}", `projects.api.approval: must be one of ask, allow, deny (or empty for agent.approval), not "maybe"`},
		{"projects:\n  api: {path: /, approvers: ['*']}", `projects.api.approvers[0]: "*" would let anyone run commands outside the sandbox; list userids (or requester)`},
		{"projects:\n  api: {path: /, sandbox: {read: [opt]}}", `projects.api.sandbox.read[0]: must be an absolute path like /usr/local/go, not "opt"`},
		{"projects:\n  api: {path: /, group_sessions: each}", `projects.api.group_sessions: must be shared or per_user, not "each"`},
		{"projects:\n  api: {path: /, users: ['']}", "projects.api.users[0]: is empty; remove it or give a WeCom userid"},
		{"projects:\n  api: {path: /, chat: [x]}", "projects.api.chat: unknown key of a project; did you mean chats?"},
		{"projects:\n  api: {path: /, sandbox: {reed: [/x]}}", "projects.api.sandbox.reed: unknown key of a project; did you mean sandbox.read?"},
		{"projects:\n  api: {path: /, limits: {turns_per_user_per_hour: -1}}", "projects.api.limits.turns_per_user_per_hour: must be 0 (no limit in this project) or a positive number of turns, not -1; leave it out to keep limits.turns_per_user_per_hour"},
		{"projects:\n  api: {path: /, limits: {tokens_per_user_per_day: -5}}", "projects.api.limits.tokens_per_user_per_day: must be 0 (no limit in this project) or a positive number of tokens, not -5; leave it out to keep limits.tokens_per_user_per_day"},
		{"projects:\n  api: {path: /, limits: {turns_per_user_per_day: 3}}", "projects.api.limits.turns_per_user_per_day: unknown key of a project; a project has path, git, ref, users, chats, default, model, models, effort, approval, approvers, sandbox, sandbox.read, instructions, group_sessions, limits, limits.turns_per_user_per_hour, limits.tokens_per_user_per_day"},
		{"projects:\n  api: {path: /, limits: {tokens_per_user_per_day: lots}}", "projects.api.limits.tokens_per_user_per_day: cannot be read: line 2: cannot unmarshal !!str `lots` into int64"},
		{"projects:\n  api: {path: /, users: alice}", "projects.api.users: cannot be read: line 2: cannot unmarshal !!str `alice` into []string"},
		{"projects:\n  api: /srv/api", "projects.api: must be a map of the project's keys (path or git, users, chats, ...)"},
		{"projects:\n  .hidden: {path: /}", "projects..hidden: is not a valid project name: use letters, digits, '.', '-' and '_', not starting with '.' or '-' (at most 64)"},
		{"projects:\n  idle_cleanup: 0s", "projects.idle_cleanup: must be a positive duration like 720h (30 days), not 0s"},
	} {
		_, _, err := Check(writeConfig(t, c.yaml))
		var ps Problems
		if !errors.As(err, &ps) {
			t.Errorf("%q: %v; want Problems", c.yaml, err)
			continue
		}
		if got := ps.Error(); got != c.want {
			t.Errorf("%q:\n got %s\nwant %s", c.yaml, got, c.want)
		}
	}
}

func TestProjectNamesAreNotUnknownKeys(t *testing.T) {
	_, warns, err := Check(writeConfig(t, "projects:\n  api: {path: /}\n"))
	if err != nil || len(warns) != 0 {
		t.Fatalf("%v, %v", err, warns)
	}
	if _, _, err := Check(writeConfig(t, "projects:\n  idle_cleanpu: 1h\n")); err == nil || !strings.Contains(err.Error(), "projects.idle_cleanpu") {
		t.Fatalf("a misspelt idle_cleanup: %v", err)
	}
}
