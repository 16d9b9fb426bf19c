package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/wecodex/wecodex/acpbridge/codex"
	"github.com/wecodex/wecodex/configs"
)

// checkProjects checks what the projects add to the layout: each
// projects.<name>.sandbox.read as agent.sandbox.read is checked, and each
// path project's checkout, which its conversations write, neither inside
// nor holding the workspace root or a path no conversation may reach.
func (s *Sandbox) checkProjects(cfg *configs.Config, root string, protected []protectedPath) error {
	for _, p := range cfg.Projects.List {
		if p.Sandbox.Read != nil {
			read, err := checkSandboxRead(p.Key("sandbox", "read"), p.Sandbox.Read, root, protected)
			if err != nil {
				return err
			}
			if s.projectRead == nil {
				s.projectRead = map[string][]string{}
			}
			s.projectRead[p.Name] = read
		}
		if p.Path == "" {
			continue
		}
		path := filepath.Clean(p.Path)
		if pathWithin(root, path) || pathWithin(path, root) {
			return fmt.Errorf("%s %s and agent.workspace_root %s: one holds the other, so conversations would reach each other's workspaces; move one", p.Key("path"), path, root)
		}
		for _, pp := range protected {
			if pathWithin(pp.path, path) {
				return fmt.Errorf("%s %s holds %s %s, which its conversations' commands would then write; move one of them", p.Key("path"), path, pp.what, pp.path)
			}
		}
	}
	return nil
}

// projectConfine is the Confinement of a session working in a project's
// directory, and false for any other directory. The project's workspace
// says what its commands write and read (projects.Workspace: for a git
// project the conversation's own directory, holding its worktree, git
// directory and tmp, with what git outside the sandbox obeys read-only);
// its sandbox.read replaces agent.sandbox.read. A denied path that holds
// one of those (the state directory, when the workspace root is not in it)
// is denied piece by piece around them instead.
func (s *Sandbox) projectConfine(cwd string) (codex.Confinement, bool) {
	if s.projects == nil {
		return codex.Confinement{}, false
	}
	w, p, ok := s.projects.ForDir(cwd)
	if !ok {
		return codex.Confinement{}, false
	}
	read := s.read
	if r, ok := s.projectRead[p.Name]; ok {
		read = r
	}
	c := codex.Confinement{Read: append(slices.Clone(read), w.Read...), Write: slices.Clone(w.Write), TmpDir: w.Tmp}
	if s.readOnly {
		c.Read = append(c.Read, w.Write...)
		c.Write = []string{w.Tmp}
	}
	for _, d := range carveOut(s.deny, append(slices.Clone(w.Read), w.Write...)) {
		if _, err := os.Lstat(d); err == nil || strings.ContainsRune(d, '*') {
			c.Deny = append(c.Deny, d)
		}
	}
	return c, true
}

// carveOut replaces each path of deny that holds one of keep by its
// entries that hold none, down to keep itself, so the kept paths stay
// reachable and everything around them stays hidden. It reads the
// directories as they are now (a thread's profile is made as it starts).
func carveOut(deny, keep []string) []string {
	var out []string
	for _, d := range deny {
		if !slices.ContainsFunc(keep, func(k string) bool { return pathWithin(k, d) }) {
			out = append(out, d)
			continue
		}
		if slices.Contains(keep, d) {
			continue
		}
		entries, err := os.ReadDir(d)
		if err != nil {
			continue // nothing there to hide
		}
		var inner []string
		for _, e := range entries {
			inner = append(inner, filepath.Join(d, e.Name()))
		}
		out = append(out, carveOut(inner, keep)...)
	}
	return out
}
