package configs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// ProjectsConfig is the projects.* section: the repositories admins bind
// chats and users to. Its keys are idle_cleanup and one map per project,
// keyed by the project's name, in the order the file lists them (the first
// project naming a conversation's chat or user is the one it gets).
//
// The projects themselves come from the file alone: a WECODEX_* variable
// can override projects.idle_cleanup, but not a project.
type ProjectsConfig struct {
	// IdleCleanup is how long a conversation's git worktree may go unused
	// before it is removed (its branch stays).
	IdleCleanup time.Duration `mapstructure:"idle_cleanup"`
	// List is every project, in file order.
	List []ProjectConfig `mapstructure:"-"`
}

// DefaultIdleCleanup is projects.idle_cleanup's default.
const DefaultIdleCleanup = 30 * 24 * time.Hour

// Group session modes (projects.<name>.group_sessions).
const (
	GroupSessionsShared  = "shared"
	GroupSessionsPerUser = "per_user"
)

// ProjectIdleCleanupKey is the one key under projects that names no
// project; no project may be called so.
const projectIdleCleanupKey = "idle_cleanup"

// ReasoningEfforts are the values projects.<name>.effort accepts: Codex's
// reasoning efforts.
var ReasoningEfforts = []string{"none", "minimal", "low", "medium", "high", "xhigh"}

// ProjectConfig is one projects.<name> section.
type ProjectConfig struct {
	// Name is the project's key under projects.
	Name string `yaml:"-"`
	// Line is where the project starts in the file, for messages.
	Line int `yaml:"-"`
	// Path is an existing checkout (on every replica) that conversations
	// work in directly; Git is a repository URL cloned once per replica,
	// each conversation then working in its own worktree on the branch
	// wecodex/<conversation>, made from Ref (empty: the remote's default
	// branch). Exactly one of Path and Git is set.
	Path string `yaml:"path"`
	Git  string `yaml:"git"`
	Ref  string `yaml:"ref"`
	// Users and Chats bind userids and group chat ids to the project.
	Users []string `yaml:"users"`
	Chats []string `yaml:"chats"`
	// Default makes this the project of every conversation no project
	// names; at most one project has it.
	Default bool `yaml:"default"`
	// Model, Effort, Approval and Approvers override agent.codex's model,
	// the reasoning effort, agent.approval and access.approvers for the
	// project's conversations; empty keeps those. A request asked in a
	// project records its approvers, so they decide it from any chat.
	Model string `yaml:"model"`
	// Models replaces agent.models for the project's conversations: the
	// models /model offers there and the only ones their turns run with.
	Models    []string `yaml:"models"`
	Effort    string   `yaml:"effort"`
	Approval  string   `yaml:"approval"`
	Approvers []string `yaml:"approvers"`
	// Sandbox.Read replaces agent.sandbox.read for the project's
	// conversations when set.
	Sandbox ProjectSandbox `yaml:"sandbox"`
	// Instructions are developer instructions Codex gets for every thread
	// of the project.
	Instructions string `yaml:"instructions"`
	// GroupSessions is shared (one session for a whole group, the
	// default) or per_user (each member of a group has their own).
	GroupSessions string `yaml:"group_sessions"`
	// Limits replace limits.* for the project's conversations.
	Limits ProjectLimits `yaml:"limits"`
}

// ProjectSandbox is projects.<name>.sandbox.
type ProjectSandbox struct {
	Read []string `yaml:"read"`
}

// ProjectLimits is projects.<name>.limits: each key set replaces the
// limits.* key of its name in the project's conversations (0: no limit
// there); one left out keeps limits.*. What a user used is counted once,
// wherever they used it: a project's limit is checked against it.
type ProjectLimits struct {
	TurnsPerUserPerHour *int   `yaml:"turns_per_user_per_hour"`
	TokensPerUserPerDay *int64 `yaml:"tokens_per_user_per_day"`
}

// Key is the project's full key, projects.<name>, or one of its keys with
// sub ("git" gives projects.<name>.git).
func (p ProjectConfig) Key(sub ...string) string {
	return strings.Join(append([]string{"projects", p.Name}, sub...), ".")
}

// projectKeys are the keys a project may have, for unknown-key messages.
var projectKeys = []string{"path", "git", "ref", "users", "chats", "default", "model", "models", "effort", "approval", "approvers", "sandbox", "sandbox.read", "instructions", "group_sessions",
	"limits", "limits.turns_per_user_per_hour", "limits.tokens_per_user_per_day"}

// ownedByProjects reports whether a lower-cased full key lies inside a
// project, which decodeProjects reads and checks rather than the key list.
func ownedByProjects(lower string) bool {
	rest, ok := strings.CutPrefix(lower, "projects.")
	return ok && rest != projectIdleCleanupKey
}

// decodeProjects reads the projects of a YAML file in file order, each
// problem naming its key: a name given twice (also when only its case
// differs, which viper would fold together), a key no project has, a value
// of the wrong shape.
// dup says a name was given twice exactly, which makes the whole file
// unreadable to the YAML decoders Load uses next.
func decodeProjects(data []byte) (list []ProjectConfig, ps Problems, dup bool) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil || len(doc.Content) == 0 {
		return nil, nil, false // Load reports the parse error
	}
	section := mapValue(doc.Content[0], "projects")
	if section == nil || section.Kind != yaml.MappingNode {
		return nil, nil, false
	}
	seen := map[string]int{}
	exact := map[string]bool{}
	for i := 0; i+1 < len(section.Content); i += 2 {
		k, v := section.Content[i], section.Content[i+1]
		if strings.EqualFold(k.Value, projectIdleCleanupKey) {
			continue
		}
		p := ProjectConfig{Name: k.Value, Line: k.Line}
		if first, twice := seen[strings.ToLower(k.Value)]; twice {
			ps = append(ps, Problem{Key: p.Key(), Message: fmt.Sprintf("is defined twice (lines %d and %d); give each project its own name", first, k.Line)})
			dup = dup || exact[k.Value]
			continue
		}
		seen[strings.ToLower(k.Value)] = k.Line
		exact[k.Value] = true
		if v.Kind != yaml.MappingNode {
			ps = append(ps, Problem{Key: p.Key(), Message: "must be a map of the project's keys (path or git, users, chats, ...)"})
			continue
		}
		ps = append(ps, unknownProjectKeys(p, v, "")...)
		if err := v.Decode(&p); err != nil {
			ps = append(ps, unreadable(p, v, err))
			continue
		}
		list = append(list, p)
	}
	return list, ps, dup
}

// unknownProjectKeys names each key of a project's map no project has.
func unknownProjectKeys(p ProjectConfig, m *yaml.Node, prefix string) Problems {
	var ps Problems
	for i := 0; i+1 < len(m.Content); i += 2 {
		name := prefix + m.Content[i].Value
		known := false
		for _, k := range projectKeys {
			known = known || k == name
		}
		switch {
		case !known:
			msg := "unknown key of a project"
			if s, d := closestName(name, projectKeys); d <= suggestDistance {
				msg += "; did you mean " + s + "?"
			} else {
				msg += "; a project has " + strings.Join(projectKeys, ", ")
			}
			ps = append(ps, Problem{Key: p.Key(name), Message: msg})
		case (name == "sandbox" || name == "limits") && m.Content[i+1].Kind == yaml.MappingNode:
			ps = append(ps, unknownProjectKeys(p, m.Content[i+1], name+".")...)
		}
	}
	return ps
}

// unreadable is the problem of a project's map that failed to decode
// with err, named by the key (one level into a section such as limits)
// whose value has the wrong shape, a word where a number goes.
func unreadable(p ProjectConfig, m *yaml.Node, err error) Problem {
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		e := decodeOne(k, v)
		if e == nil {
			continue
		}
		if v.Kind == yaml.MappingNode {
			for j := 0; j+1 < len(v.Content); j += 2 {
				sub := &yaml.Node{Kind: yaml.MappingNode, Content: v.Content[j : j+2]}
				if e := decodeOne(k, sub); e != nil {
					return Problem{Key: p.Key(k.Value, v.Content[j].Value), Message: "cannot be read: " + yamlReason(e)}
				}
			}
		}
		return Problem{Key: p.Key(k.Value), Message: "cannot be read: " + yamlReason(e)}
	}
	return Problem{Key: p.Key(), Message: "cannot be read: " + rootCause(err)}
}

// decodeOne decodes the one key k with value v of a project's map.
func decodeOne(k, v *yaml.Node) error {
	var p ProjectConfig
	return (&yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{k, v}}).Decode(&p)
}

// yamlReason is the decoder's own words for err: the first of its
// unmarshal errors ("line 3: cannot unmarshal !!str `lots` into int64").
func yamlReason(err error) string {
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		return te.Errors[0]
	}
	return rootCause(err)
}

// mapValue is the value of key in a YAML mapping node, matched as viper
// matches keys (ignoring case), or nil.
func mapValue(m *yaml.Node, key string) *yaml.Node {
	if m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if strings.EqualFold(m.Content[i].Value, key) {
			return m.Content[i+1]
		}
	}
	return nil
}

// validateProjects checks projects.*: each project's values, that a path
// project's directory exists here, and that at most one is the default.
// Whether a git remote answers needs the network: check-config warns.
func validateProjects(c *Config, add func(key, format string, args ...any)) {
	if c.Projects.IdleCleanup <= 0 {
		add("projects.idle_cleanup", "must be a positive duration like 720h (30 days), not %s", c.Projects.IdleCleanup)
	}
	var defaults []string
	for _, p := range c.Projects.List {
		validateProject(p, add)
		if p.Default {
			defaults = append(defaults, p.Name)
		}
	}
	if len(defaults) > 1 {
		for _, name := range defaults[1:] {
			add("projects."+name+".default", "only one project may be the default; %s already is", defaults[0])
		}
	}
}

func validateProject(p ProjectConfig, add func(key, format string, args ...any)) {
	if !ValidProjectName(p.Name) {
		add(p.Key(), "is not a valid project name: use letters, digits, '.', '-' and '_', not starting with '.' or '-' (at most 64)")
	}
	switch {
	case p.Path == "" && p.Git == "":
		add(p.Key(), "needs path (an existing checkout on every replica) or git (a repository URL to clone)")
	case p.Path != "" && p.Git != "":
		add(p.Key("path"), "and git are both set; a project is either an existing checkout (path) or a repository to clone (git)")
	case p.Path != "" && !filepath.IsAbs(p.Path):
		add(p.Key("path"), "must be an absolute path like /srv/checkouts/api, not %q", p.Path)
	case p.Path != "":
		// An existing checkout on every replica: this one too.
		if fi, err := os.Stat(p.Path); err != nil {
			add(p.Key("path"), "%s does not exist on this machine (%v); check out the project there, or use git: to let wecodex clone it", p.Path, errors.Unwrap(err))
		} else if !fi.IsDir() {
			add(p.Key("path"), "%s is not a directory", p.Path)
		}
	}
	if p.Ref != "" && p.Git == "" {
		add(p.Key("ref"), "needs git: a path project works in its checkout as it is")
	}
	if p.Ref != "" && !validRefName(p.Ref) {
		add(p.Key("ref"), "is not a git branch, tag or commit name: %q", p.Ref)
	}
	if p.Git != "" && strings.HasPrefix(p.Git, "-") {
		add(p.Key("git"), "must be a repository URL or path, not %q", p.Git)
	}
	for i, u := range p.Users {
		if strings.TrimSpace(u) == "" {
			add(fmt.Sprintf("%s[%d]", p.Key("users"), i), "is empty; remove it or give a WeCom userid")
		}
	}
	for i, u := range p.Chats {
		if strings.TrimSpace(u) == "" {
			add(fmt.Sprintf("%s[%d]", p.Key("chats"), i), "is empty; remove it or give a group chat id")
		}
	}
	validateModels(p.Key("models"), p.Models, add)
	if p.Model != "" && len(p.Models) > 0 && !contains(p.Models, p.Model) {
		add(p.Key("model"), "is %q, which %s does not list; add it there or pick one of %s", p.Model, p.Key("models"), strings.Join(p.Models, ", "))
	}
	if p.Effort != "" && !contains(ReasoningEfforts, p.Effort) {
		add(p.Key("effort"), "must be one of %s, not %q", strings.Join(ReasoningEfforts, ", "), p.Effort)
	}
	if p.Approval != "" && !contains([]string{ApprovalAsk, ApprovalAllow, ApprovalDeny}, p.Approval) {
		add(p.Key("approval"), "must be one of %s, %s, %s (or empty for agent.approval), not %q", ApprovalAsk, ApprovalAllow, ApprovalDeny, p.Approval)
	}
	for i, u := range p.Approvers {
		switch strings.TrimSpace(u) {
		case "":
			add(fmt.Sprintf("%s[%d]", p.Key("approvers"), i), "is empty; remove it or give a WeCom userid (or requester)")
		case "*":
			add(fmt.Sprintf("%s[%d]", p.Key("approvers"), i), "\"*\" would let anyone run commands outside the sandbox; list userids (or requester)")
		}
	}
	for i, r := range p.Sandbox.Read {
		if !filepath.IsAbs(r) {
			add(fmt.Sprintf("%s[%d]", p.Key("sandbox", "read"), i), "must be an absolute path like /usr/local/go, not %q", r)
		}
	}
	if p.GroupSessions != "" && p.GroupSessions != GroupSessionsShared && p.GroupSessions != GroupSessionsPerUser {
		add(p.Key("group_sessions"), "must be %s or %s, not %q", GroupSessionsShared, GroupSessionsPerUser, p.GroupSessions)
	}
	if n := p.Limits.TurnsPerUserPerHour; n != nil && *n < 0 {
		add(p.Key("limits", "turns_per_user_per_hour"), "must be 0 (no limit in this project) or a positive number of turns, not %d; leave it out to keep limits.turns_per_user_per_hour", *n)
	}
	if n := p.Limits.TokensPerUserPerDay; n != nil && *n < 0 {
		add(p.Key("limits", "tokens_per_user_per_day"), "must be 0 (no limit in this project) or a positive number of tokens, not %d; leave it out to keep limits.tokens_per_user_per_day", *n)
	}
}

// ValidProjectName reports whether name can name a project: it becomes a
// directory name and part of log lines, so it is one plain path element.
func ValidProjectName(name string) bool {
	if name == "" || len(name) > 64 || name[0] == '.' || name[0] == '-' || strings.EqualFold(name, projectIdleCleanupKey) {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// validRefName is a loose form of git check-ref-format: enough to refuse
// what could never name a ref or would read as an option.
func validRefName(ref string) bool {
	if strings.HasPrefix(ref, "-") || strings.HasPrefix(ref, "/") || strings.HasSuffix(ref, "/") ||
		strings.HasSuffix(ref, ".lock") || strings.HasSuffix(ref, ".") || strings.Contains(ref, "..") ||
		strings.Contains(ref, "@{") || strings.Contains(ref, "//") {
		return false
	}
	for _, r := range ref {
		if r <= ' ' || r == 0x7f || strings.ContainsRune("~^:?*[\\", r) {
			return false
		}
	}
	return true
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
