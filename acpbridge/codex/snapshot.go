package codex

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// A snapshot is the git tree of a thread's working directory taken just
// before a turn starts, so /undo can put back the files the turn changed:
// Codex's thread/revert rewinds only the history. The trees live in a git
// directory of wecodex's own per thread (Options.SnapshotDir), never in the
// workspace's repository, whose index and refs it does not touch. Files the
// workspace's .gitignore ignores are not snapshotted.

// snapshotTimeout bounds recording a snapshot after a turn.
const snapshotTimeout = 30 * time.Second

// snapshotter takes and restores snapshots of one thread's cwd.
type snapshotter struct {
	gitDir, workTree string
}

func (a *Agent) snapshotterFor(threadID, cwd string) (snapshotter, bool) {
	if a.opts.SnapshotDir == "" || cwd == "" {
		return snapshotter{}, false
	}
	return snapshotter{gitDir: filepath.Join(a.opts.SnapshotDir, threadID+".git"), workTree: cwd}, true
}

// git runs git on the snapshot directory and the work tree with an
// environment of its own: no user or system config, no hooks.
func (s snapshotter) git(ctx context.Context, stdout *bytes.Buffer, args ...string) error {
	full := append([]string{"--git-dir=" + s.gitDir, "--work-tree=" + s.workTree,
		"-c", "core.autocrlf=false", "-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null"}, args...)
	cmd := exec.CommandContext(ctx, "git", full...)
	cmd.Dir = s.workTree
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + s.gitDir, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "LC_ALL=C"}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if stdout != nil { // a nil *Buffer in the interface would be written to
		cmd.Stdout = stdout
	}
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("git %s: %w: %s", args[0], err, strings.TrimSpace(stderr.String()))
	}
	return nil
}

// take records the work tree as it is and returns its tree id.
func (s snapshotter) take(ctx context.Context) (string, error) {
	if _, err := os.Stat(filepath.Join(s.gitDir, "HEAD")); err != nil {
		if err := os.MkdirAll(s.gitDir, 0o700); err != nil {
			return "", fmt.Errorf("snapshot dir: %w", err)
		}
		if err := s.git(ctx, nil, "init", "-q"); err != nil {
			return "", err
		}
	}
	if err := s.git(ctx, nil, "add", "-A", "--", "."); err != nil {
		return "", err
	}
	var out bytes.Buffer
	if err := s.git(ctx, &out, "write-tree"); err != nil {
		return "", err
	}
	return strings.TrimSpace(out.String()), nil
}

// restore puts the work tree back as tree has it: files changed or deleted
// since are written again, files created since are removed. It returns
// both lists, sorted.
func (s snapshotter) restore(ctx context.Context, tree string) (restored, removed []string, err error) {
	now, err := s.take(ctx)
	if err != nil {
		return nil, nil, err
	}
	var out bytes.Buffer
	if err := s.git(ctx, &out, "diff-tree", "-r", "-z", "--no-renames", "--name-status", tree, now); err != nil {
		return nil, nil, err
	}
	fields := strings.Split(strings.TrimSuffix(out.String(), "\x00"), "\x00")
	for i := 0; i+1 < len(fields); i += 2 {
		if fields[i] == "A" {
			removed = append(removed, fields[i+1])
		} else {
			restored = append(restored, fields[i+1])
		}
	}
	if err := s.git(ctx, nil, "read-tree", tree); err != nil {
		return nil, nil, err
	}
	if len(restored) > 0 {
		if err := s.git(ctx, nil, append([]string{"checkout-index", "-f", "--"}, restored...)...); err != nil {
			return nil, nil, err
		}
	}
	for _, p := range removed {
		if err := os.Remove(filepath.Join(s.workTree, p)); err != nil && !os.IsNotExist(err) {
			return nil, nil, fmt.Errorf("remove %s: %w", p, err)
		}
	}
	sort.Strings(restored)
	sort.Strings(removed)
	return restored, removed, nil
}
