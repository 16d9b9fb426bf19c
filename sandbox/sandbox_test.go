package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/wecodex/wecodex/acpbridge/codex"
	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/configs"
	"github.com/wecodex/wecodex/projects"
)

// loadConfig writes yaml to dir/wecodex.yaml and loads it as serve does.
func loadConfig(t *testing.T, dir, yaml string) (*configs.Config, string) {
	t.Helper()
	path := filepath.Join(dir, "wecodex.yaml")
	writeFile(t, path, yaml)
	cfg, _, err := configs.Load(path)
	if err != nil {
		t.Fatalf("load %s: %v", yaml, err)
	}
	return cfg, path
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// New refuses each layout whose hole Codex's sandbox could not close, and
// names the keys that make it.
func TestNewRefusesAnUnsafeLayout(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "workspaces")
	home := filepath.Join(dir, "codex-home")
	state := filepath.Join(dir, "state", "wecodex")
	checkout := filepath.Join(dir, "checkout")
	for _, tc := range []struct {
		name  string
		agent string // the agent section's keys, indented by two spaces
		more  string // sections after agent
		home  string // CODEX_HOME, when not home
		state string // the state directory, when not state
		toml  string // CODEX_HOME/config.toml
		want  string
	}{{
		name:  "CODEX_HOME in the workspace root",
		agent: fmt.Sprintf("workspace_root: %q", root),
		home:  filepath.Join(root, "codex"),
		want: "CODEX_HOME (agent.codex.home) " + root + "/codex is inside agent.workspace_root " + root +
			": a conversation whose workspace holds it would read it; move one of them so neither contains the other",
	}, {
		// CFGDIR is the directory the config file is written to.
		name:  "the config file in the workspace root",
		agent: `workspace_root: CFGDIR`,
		want: "the config file CFGDIR/wecodex.yaml is inside agent.workspace_root CFGDIR" +
			": a conversation whose workspace holds it would read it; move one of them so neither contains the other",
	}, {
		name:  "a secret file in the workspace root",
		agent: fmt.Sprintf("workspace_root: %q", root),
		more:  fmt.Sprintf("redis:\n  password_file: %q\n", filepath.Join(root, "token")),
		want: "the secret file redis.password_file " + root + "/token is inside agent.workspace_root " + root +
			": a conversation whose workspace holds it would read it; move one of them so neither contains the other",
	}, {
		name:  "state directory in the workspace root",
		agent: fmt.Sprintf("workspace_root: %q", root),
		state: filepath.Join(root, "xdg", "wecodex"),
		want: "wecodex's state directory " + root + "/xdg/wecodex is inside agent.workspace_root " + root +
			": a conversation whose workspace holds it would read it; move one of them so neither contains the other",
	}, {
		name:  "a readable path that holds the workspaces",
		agent: fmt.Sprintf("workspace_root: %q\n  sandbox:\n    read: [/usr, %q]", root, dir),
		want: "agent.sandbox.read[1] " + dir + " holds agent.workspace_root " + root +
			": every conversation's commands would read every workspace; list the directories they need inside it instead",
	}, {
		name:  "a readable path inside the workspaces",
		agent: fmt.Sprintf("workspace_root: %q\n  sandbox:\n    read: [%q]", root, filepath.Join(root, "shared")),
		want: "agent.sandbox.read[0] " + root + "/shared is inside agent.workspace_root " + root +
			": every conversation's commands would read the workspaces there; remove it",
	}, {
		name:  "a readable path inside CODEX_HOME",
		agent: fmt.Sprintf("workspace_root: %q\n  sandbox:\n    read: [%q]", root, filepath.Join(home, "sessions")),
		want: "agent.sandbox.read[0] " + home + "/sessions is inside CODEX_HOME (agent.codex.home) " + home +
			", which no conversation's commands may read; remove it",
	}, {
		name:  "a readable path inside the state directory",
		agent: fmt.Sprintf("workspace_root: %q\n  sandbox:\n    read: [%q]", root, filepath.Join(state, "cache")),
		want: "agent.sandbox.read[0] " + state + "/cache is inside wecodex's state directory " + state +
			", which no conversation's commands may read; remove it",
	}, {
		name:  "workspaces in the platform minimum",
		agent: `workspace_root: /usr/local/wecodex`,
		want: "agent.workspace_root /usr/local/wecodex is inside /usr, which Codex lets every command read: " +
			"each conversation would read every workspace; move the workspace root out of it",
	}, {
		name:  "the profile in CODEX_HOME/config.toml",
		agent: fmt.Sprintf("workspace_root: %q", root),
		toml:  "model = \"o3\"\n\n[permissions.wecodex.filesystem]\n\"/\" = \"write\"\n",
		want: home + "/config.toml line 3 defines the permission profile \"wecodex\", which wecodex sends with every thread: " +
			"Codex would merge its entries into it and widen what every conversation reaches; rename or remove it (agent.sandbox says what conversations reach)",
	}, {
		name:  "the profile in agent.codex.config",
		agent: fmt.Sprintf("workspace_root: %q\n  codex:\n    config:\n      permissions.wecodex.filesystem.\":root\": write", root),
		want: "agent.codex.config.permissions.wecodex.filesystem.\":root\": wecodex sends its own permission profile \"wecodex\" with every thread, " +
			"and Codex would merge this into it; remove it (agent.sandbox says what conversations reach)",
	}, {
		name:  "a project's readable path inside CODEX_HOME",
		agent: fmt.Sprintf("workspace_root: %q", root),
		more:  fmt.Sprintf("projects:\n  api:\n    path: %q\n    sandbox:\n      read: [/usr, %q]\n", checkout, filepath.Join(home, "sessions")),
		want: "projects.api.sandbox.read[1] " + home + "/sessions is inside CODEX_HOME (agent.codex.home) " + home +
			", which no conversation's commands may read; remove it",
	}, {
		name:  "a project's checkout that holds the workspaces",
		agent: fmt.Sprintf("workspace_root: %q", filepath.Join(checkout, "workspaces")),
		more:  fmt.Sprintf("projects:\n  api:\n    path: %q\n", checkout),
		want: "projects.api.path " + checkout + " and agent.workspace_root " + checkout + "/workspaces" +
			": one holds the other, so conversations would reach each other's workspaces; move one",
	}, {
		name:  "a project's checkout inside the workspaces",
		agent: fmt.Sprintf("workspace_root: %q", root),
		more:  fmt.Sprintf("projects:\n  api:\n    path: %q\n", filepath.Join(root, "api")),
		want: "projects.api.path " + root + "/api and agent.workspace_root " + root +
			": one holds the other, so conversations would reach each other's workspaces; move one",
	}, {
		name:  "a project's checkout that holds CODEX_HOME",
		agent: fmt.Sprintf("workspace_root: %q", root),
		more:  fmt.Sprintf("projects:\n  api:\n    path: %q\n", checkout),
		home:  filepath.Join(checkout, ".codex"),
		want: "projects.api.path " + checkout + " holds CODEX_HOME (agent.codex.home) " + checkout + "/.codex" +
			", which its conversations' commands would then write; move one of them",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.RemoveAll(home); err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(root, "token"), "a-token\n")
			if tc.toml != "" {
				writeFile(t, filepath.Join(home, "config.toml"), tc.toml)
			}
			cfgDir := t.TempDir()
			cfg, path := loadConfig(t, cfgDir, "agent:\n  "+strings.ReplaceAll(tc.agent, "CFGDIR", cfgDir)+"\n"+tc.more)
			svc := Service{ConfigFile: path, CodexHome: home, StateDir: state}
			if tc.home != "" {
				svc.CodexHome = tc.home
			}
			if tc.state != "" {
				svc.StateDir = tc.state
			}
			s, err := New(cfg, svc, nil)
			if want := strings.ReplaceAll(tc.want, "CFGDIR", cfgDir); err == nil || err.Error() != want {
				t.Fatalf("New = %v, %v\nwant the error %q", s, err, want)
			}
		})
	}
}

// With agent.kind acp or agent.codex.sandbox danger-full-access there is no
// sandbox, whatever the layout.
func TestNoSandbox(t *testing.T) {
	dir := t.TempDir()
	for _, agent := range []string{"kind: acp\n  acp:\n    command: [agent]", "codex:\n    sandbox: danger-full-access"} {
		cfg, path := loadConfig(t, dir, fmt.Sprintf("agent:\n  %s\n  workspace_root: %q\n", agent, dir))
		if s, err := New(cfg, Service{ConfigFile: path, CodexHome: filepath.Join(dir, "home")}, nil); s != nil || err != nil {
			t.Errorf("%s: New = %v, %v; want no sandbox", agent, s, err)
		}
	}
}

// layout is a serve layout under a temporary directory: the workspace
// root, CODEX_HOME, the config file, the state directory (missing) and a
// conversation's workspace.
type layout struct {
	dir, root, home, config, state, cwd string
}

func newLayout(t *testing.T) layout {
	dir := t.TempDir()
	l := layout{dir: dir, root: filepath.Join(dir, "workspaces"), home: filepath.Join(dir, "codex-home"),
		config: filepath.Join(dir, "wecodex.yaml"), state: filepath.Join(dir, "state", "wecodex")}
	l.cwd = bot.WorkspaceDir(l.root, "single:alice")
	for _, d := range []string{l.cwd, bot.WorkspaceTmp(l.cwd), l.home, filepath.Join(dir, "secrets")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	return l
}

// systemDenied are the paths of systemDeny Confine sends on this machine
// when the workspace root is in none of them.
func systemDenied(root string) []string {
	var out []string
	for _, d := range systemDeny {
		if _, err := os.Lstat(d); (err == nil || strings.ContainsRune(d, '*')) && !pathWithin(root, d) {
			out = append(out, d)
		}
	}
	return out
}

// Confine gives a conversation agent.sandbox.read, its own workspace and
// tmp, and denies the platform's secrets, agent.sandbox.deny and serve's
// own files: only what exists (or is a pattern), and no path inside another
// denied one.
func TestConfine(t *testing.T) {
	l := newLayout(t)
	secrets := filepath.Join(l.dir, "secrets")
	for _, tc := range []struct{ mode, cwd string }{{"workspace-write", "write"}, {"read-only", "read"}} {
		cfg, _ := loadConfig(t, l.dir, fmt.Sprintf("agent:\n  workspace_root: %q\n  codex:\n    sandbox: %s\n  sandbox:\n    read: [/usr, /opt/tools/]\n    deny: [%q, %q, %q, %q]\n",
			l.root, tc.mode, secrets, filepath.Join(secrets, "inner"), filepath.Join(l.dir, "gone"), filepath.Join(l.dir, "*.key")))
		s, err := New(cfg, Service{ConfigFile: l.config, CodexHome: l.home, StateDir: l.state}, nil)
		if err != nil {
			t.Fatal(err)
		}
		tmp := bot.WorkspaceTmp(l.cwd)
		want := codex.Confinement{Read: []string{"/usr", "/opt/tools"}, Write: []string{tmp, l.cwd}, TmpDir: tmp}
		if tc.cwd == "read" {
			want.Read, want.Write = append(want.Read, l.cwd), []string{tmp}
		}
		want.Deny = append(systemDenied(l.root), filepath.Join(l.dir, "*.key"), l.home, secrets, l.config)
		slices.Sort(want.Deny)
		if got := s.Confine(l.cwd); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: Confine =\n%+v\nwant\n%+v", tc.mode, got, want)
		}
		if got, want := s.Read(), []string{"/usr", "/opt/tools"}; !reflect.DeepEqual(got, want) {
			t.Errorf("Read = %q, want %q", got, want)
		}
		if got := s.Deny(); !slices.Contains(got, l.state) || slices.Contains(got, filepath.Join(secrets, "inner")) {
			t.Errorf("Deny = %q: want the state directory, and nothing inside %s", got, secrets)
		}
	}
}

// A session in a path project writes the checkout and the project's tmp and
// reads its sandbox.read instead of agent.sandbox.read; a denied directory
// that holds the checkout is denied around it.
func TestProjectConfine(t *testing.T) {
	l := newLayout(t)
	srv := filepath.Join(l.dir, "srv")
	checkout, other := filepath.Join(srv, "api"), filepath.Join(srv, "other")
	for _, d := range []string{checkout, other} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	cfg, _ := loadConfig(t, l.dir, fmt.Sprintf("agent:\n  workspace_root: %q\n  codex:\n    sandbox: workspace-write\n  sandbox:\n    deny: [%q]\nprojects:\n  api:\n    path: %q\n    sandbox:\n      read: [/usr, /srv/docs]\n",
		l.root, srv, checkout))
	reg, err := projects.New([]projects.Project{{Name: "api", Path: checkout}}, projects.Options{StateDir: l.state, WorkspaceRoot: l.root})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(cfg, Service{ConfigFile: l.config, CodexHome: l.home, StateDir: l.state}, reg)
	if err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(l.root, ".projects", "api", ".tmp")
	want := codex.Confinement{Read: []string{"/usr", "/srv/docs"}, Write: []string{checkout, tmp}, TmpDir: tmp,
		Deny: append(systemDenied(l.root), l.home, other, l.config)}
	slices.Sort(want.Deny)
	if got := s.Confine(checkout); !reflect.DeepEqual(got, want) {
		t.Errorf("Confine(%s) =\n%+v\nwant\n%+v", checkout, got, want)
	}
	// A conversation's own workspace is no project's: agent.sandbox.read.
	if got := s.Confine(l.cwd); !reflect.DeepEqual(got.Read, configs.DefaultSandboxRead) || !slices.Contains(got.Deny, srv) {
		t.Errorf("Confine(%s) = %+v: want agent.sandbox.read and %s denied", l.cwd, got, srv)
	}
}

// outermost keeps one path of each nest, once, sorted.
func TestOutermost(t *testing.T) {
	got := outermost([]string{"/a/b", "/c", "/a", "/c", "/ab", "/a/b/c"})
	if want := []string{"/a", "/ab", "/c"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("outermost = %q, want %q", got, want)
	}
}
