package bot

import (
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

// ensureWorkspace creates the conversation's directory (0700: other local
// users must not read what the agent writes) and returns its absolute path.
func ensureWorkspace(root, conversation string) (string, error) {
	dir, err := filepath.Abs(WorkspaceDir(root, conversation))
	if err != nil {
		return "", fmt.Errorf("resolve workspace of %q: %w", conversation, err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("create workspace %s: %w", dir, err)
	}
	return dir, nil
}
