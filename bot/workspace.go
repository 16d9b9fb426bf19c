package bot

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// WorkspaceDir returns the directory a conversation's agent works in:
// root/<conversation id made safe as one path element>. Characters outside
// [A-Za-z0-9._-] become '_', and a short hash of the raw id is appended
// whenever anything was changed, so two different ids never share a directory
// and no id can climb out of root.
func WorkspaceDir(root, conversation string) string {
	var b strings.Builder
	changed := false
	for _, r := range conversation {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		case r == '.' && b.Len() > 0:
			b.WriteRune(r)
		default:
			b.WriteByte('_')
			changed = true
		}
	}
	name := b.String()
	if len(name) > 64 {
		name, changed = name[:64], true
	}
	if name == "" || changed {
		sum := sha256.Sum256([]byte(conversation))
		name += "-" + hex.EncodeToString(sum[:6])
	}
	return filepath.Join(root, name)
}

// tmpDirs is the directory under the workspace root that holds each
// conversation's private temporary directory. No conversation's workspace
// can be named so (WorkspaceDir never starts a name with a dot).
const tmpDirs = ".tmp"

// WorkspaceTmp returns the private temporary directory of the conversation
// working in workspace (a WorkspaceDir): root/.tmp/<the workspace's name>.
// It sits outside the workspace, so what commands leave there never shows
// in the user's files, and apart from every other conversation's, so one
// conversation's commands never read or replace another's temporary files
// as they could in a shared /tmp.
func WorkspaceTmp(workspace string) string {
	return filepath.Join(filepath.Dir(workspace), tmpDirs, filepath.Base(workspace))
}

// ensureWorkspace creates the conversation's directory and its private
// temporary directory (0700: other local users must not read what the agent
// writes) and returns the workspace's absolute path.
func ensureWorkspace(root, conversation string) (string, error) {
	dir, err := filepath.Abs(WorkspaceDir(root, conversation))
	if err != nil {
		return "", fmt.Errorf("resolve workspace of %q: %w", conversation, err)
	}
	for _, d := range []string{dir, WorkspaceTmp(dir)} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return "", fmt.Errorf("create workspace %s: %w", d, err)
		}
	}
	return dir, nil
}

// workingDir is the directory q's turn works in: its project's (see
// Projects), else the conversation's own workspace.
func (r *turnRunner) workingDir(ctx context.Context, q queued) (string, error) {
	project, err := r.projectOf(ctx, q)
	if err != nil {
		return "", err
	}
	if project != "" {
		dir, err := r.cfg.Projects.Workspace(ctx, project, q.Conversation)
		if err != nil {
			return "", fmt.Errorf("prepare project %s for %s: %w", project, q.Conversation, err)
		}
		return dir, nil
	}
	return ensureWorkspace(r.cfg.WorkspaceRoot, q.Conversation)
}
