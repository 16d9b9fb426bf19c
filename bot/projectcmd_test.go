package bot_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wecodex/wecodex/acpbridge/codex"
	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/internal/chattest"
	"github.com/wecodex/wecodex/internal/codextest"
	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/testenv"
	"github.com/wecodex/wecodex/projects"
	"github.com/wecodex/wecodex/store"
)

// projectRig is an engine on the real Codex (scripted model, no sandbox:
// the scripted commands only write in the worktree), the real Redis, and
// a real projects.Registry whose git projects are clones of a local bare
// repository holding README.md ("hello").
type projectRig struct {
	h      *codextest.Harness
	st     *testenv.Stores
	reg    *projects.Registry
	chat   *chattest.Chat
	e      *bot.Engine
	webDir string
}

func newProjectRig(t *testing.T, script sm.Script) *projectRig {
	t.Helper()
	return newProjectRigWith(t, script, func(p registryProjects) bot.Projects { return p })
}

// newProjectRigWith is newProjectRig with the engine's Projects made by
// wrap from the registry's.
func newProjectRigWith(t *testing.T, script sm.Script, wrap func(registryProjects) bot.Projects) *projectRig {
	t.Helper()
	h := codextest.StartWith(t, script, sm.HomeOptions{SandboxMode: "danger-full-access"})
	bare := bareRepo(t)
	web := t.TempDir()
	root := filepath.Join(t.TempDir(), "workspaces")
	reg, err := projects.New([]projects.Project{
		{Name: "api", Git: bare, Ref: "main", Users: []string{"alice"}, Chats: []string{"team"}},
		{Name: "web", Path: web, Users: []string{"alice"}},
		{Name: "ops", Git: bare, Ref: "main", Users: []string{"carol"}},
		{Name: "shop", Git: bare, Ref: "main", Chats: []string{"crew"}, GroupSessions: projects.GroupPerUser},
	}, projects.Options{StateDir: t.TempDir(), WorkspaceRoot: root, Logger: quietLog()})
	if err != nil {
		t.Fatal(err)
	}
	st := testenv.OpenStores(t, testenv.Prefix(t, "botprojects"))
	agent := codex.New(codex.Options{Bin: h.Bin, Env: h.CodexEnv(), Phases: st, Logger: quietLog()})
	t.Cleanup(func() { _ = agent.Close() })
	chat := chattest.New()
	e, err := bot.New(bot.Config{
		Replica: "replica-a", WorkspaceRoot: root, UpdateInterval: time.Millisecond, Logger: quietLog(),
		LeaseTTL: store.LeaseTTL, HeartbeatTTL: store.ReplicaTTL, Projects: wrap(registryProjects{reg}),
		Access: bot.Access{AllowUsers: []string{"alice", "bob", "dave"}, AllowChats: []string{"team", "crew"}},
	}, testenv.EngineStore(st), agent, chat)
	if err != nil {
		t.Fatal(err)
	}
	run(t, e)
	return &projectRig{h: h, st: st, reg: reg, chat: chat, e: e, webDir: web}
}

// bareRepo is a bare repository with one commit on main: README.md
// holding "hello".
func bareRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	bare, work := filepath.Join(dir, "remote.git"), filepath.Join(dir, "work")
	gitOut(t, dir, "init", "--quiet", "--bare", "--initial-branch=main", bare)
	gitOut(t, dir, "init", "--quiet", "--initial-branch=main", work)
	if err := os.WriteFile(filepath.Join(work, "README.md"), []byte("hello\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	gitOut(t, work, "add", "README.md")
	gitOut(t, work, "commit", "--quiet", "-m", "first")
	gitOut(t, work, "push", "--quiet", bare, "main")
	return bare
}

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// blob is git's short id of a file holding text.
func blob(t *testing.T, text string) string {
	t.Helper()
	cmd := exec.Command("git", "hash-object", "--stdin")
	cmd.Stdin = strings.NewReader(text)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	return string(out[:7])
}

// say sends user's text in conv and returns the reply intake gave at once
// (a command's answer).
func (r *projectRig) say(t *testing.T, id string, conv bot.Conversation, user, text string) string {
	t.Helper()
	rc, err := r.e.Receive(t.Context(), chattest.Message(id, conv, user, text))
	if err != nil {
		t.Fatal(err)
	}
	return rc.Reply.Text
}

// turn sends user's text in conv and waits until its card is the nth
// finished in conv and the turn has let its lease go.
func (r *projectRig) turn(t *testing.T, id string, conv bot.Conversation, user, text string) {
	t.Helper()
	n := 0
	for _, l := range r.chat.Events(conv) {
		if l == "finish" {
			n++
		}
	}
	r.say(t, id, conv, user, text)
	r.chat.WaitForCount(t, conv, "finish", n+1)
	r.leaseFree(t, conv) // a command refused mid-turn (/resume, /reset) must not see it
}

// workspace is conv's worktree in project (made already).
func (r *projectRig) workspace(t *testing.T, project string, conv bot.Conversation) projects.Workspace {
	t.Helper()
	w, err := r.reg.Workspace(t.Context(), project, conv.Key())
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// registryProjects is what cmd/wecodex hands the engine, over a Registry.
type registryProjects struct{ reg *projects.Registry }

func (p registryProjects) Resolve(chat, user string) (string, bool) {
	pr, ok := p.reg.Resolve(chat, user)
	return pr.Name, ok
}

func (p registryProjects) Workspace(ctx context.Context, project, conv string) (string, error) {
	w, err := p.reg.Workspace(ctx, project, conv)
	return w.Dir, err
}

func (p registryProjects) Names() []string {
	var out []string
	for _, pr := range p.reg.Projects() {
		out = append(out, pr.Name)
	}
	return out
}

func (p registryProjects) MayUse(project, chat, user string) bool {
	pr, ok := p.reg.Lookup(project)
	return ok && p.reg.MayUse(pr, chat, user)
}

func (p registryProjects) PerUser(project string) bool {
	pr, ok := p.reg.Lookup(project)
	return ok && pr.GroupSessions == projects.GroupPerUser
}

func (p registryProjects) Changes(ctx context.Context, project, conv string) (bot.ProjectChanges, bool, error) {
	c, err := p.reg.Changes(ctx, project, conv)
	if errors.Is(err, projects.ErrNotGit) {
		return bot.ProjectChanges{}, false, nil
	}
	out := bot.ProjectChanges{Branch: c.Branch, Patch: c.Patch}
	for _, f := range c.Files {
		out.Files = append(out.Files, bot.FileChange{Path: f.Path, Added: f.Added, Deleted: f.Deleted, Binary: f.Binary, New: f.New})
	}
	return out, true, err
}

func (p registryProjects) Reset(ctx context.Context, project, conv string) (bool, error) {
	err := p.reg.Reset(ctx, project, conv)
	if errors.Is(err, projects.ErrNotGit) {
		return false, nil
	}
	return true, err
}

// Approval and Approvers are the project's own approval settings
// (bot.ProjectApprovals), as cmd/wecodex hands them to the engine.
func (p registryProjects) Approval(project string) string {
	pr, _ := p.reg.Lookup(project)
	return pr.Settings.Approval
}

func (p registryProjects) Approvers(project string) []string {
	pr, _ := p.reg.Lookup(project)
	return pr.Settings.Approvers
}

// Limits are the project's own limits (bot.ProjectLimits).
func (p registryProjects) Limits(project string) bot.LimitOverrides {
	pr, _ := p.reg.Lookup(project)
	return bot.LimitOverrides{TurnsPerHour: pr.Settings.TurnsPerUserPerHour, TokensPerDay: pr.Settings.TokensPerUserPerDay}
}

// leaseFree waits until no turn holds conv's lease.
func (r *projectRig) leaseFree(t *testing.T, conv bot.Conversation) {
	t.Helper()
	for {
		_, token, err := r.st.Queue.Lease(t.Context(), conv.Key())
		if err != nil {
			t.Fatal(err)
		}
		if token == 0 {
			return
		}
		select {
		case <-t.Context().Done():
			t.Fatalf("%s's lease was never released", conv.Key())
		case <-time.After(10 * time.Millisecond):
		}
	}
}
