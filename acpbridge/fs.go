package acpbridge

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrOutsideWorkspace is returned (wrapped) for a file request whose path,
// after resolving "..", symlinks and the workspace's own symlinks, is not
// inside the session's workspace.
var ErrOutsideWorkspace = errors.New("path is outside the session's workspace")

// Workspace serves an agent's fs/read_text_file and fs/write_text_file
// requests inside one directory tree, the conversation's working directory.
//
// A path is checked twice: first resolved with filepath.EvalSymlinks on its
// deepest existing ancestor (so a clear error names the refused path, and a
// file about to be created is judged by the directory it lands in), then the
// I/O itself goes through an os.Root opened on the workspace, which refuses
// any component that escapes it even if a symlink changed in between.
type Workspace struct {
	dir  string // as configured, cleaned and absolute
	real string // dir with its own symlinks resolved
}

// NewWorkspace returns the workspace rooted at dir, which must exist.
func NewWorkspace(dir string) (*Workspace, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("workspace %q: %w", dir, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("workspace %q: %w", dir, err)
	}
	return &Workspace{dir: abs, real: real}, nil
}

// Dir is the workspace directory as given.
func (w *Workspace) Dir() string { return w.dir }

// ReadTextFile returns the file's text, or the lines [line, line+limit) when
// line (1-based) or limit is given; zero means "from the start" / "to the end".
func (w *Workspace) ReadTextFile(path string, line, limit int) (string, error) {
	rel, err := w.resolve(path)
	if err != nil {
		return "", err
	}
	root, err := os.OpenRoot(w.real)
	if err != nil {
		return "", fmt.Errorf("open workspace %s: %w", w.dir, err)
	}
	defer root.Close()
	b, err := root.ReadFile(rel)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	return sliceLines(string(b), line, limit), nil
}

// WriteTextFile writes content to the file, creating it and its missing
// parent directories inside the workspace.
func (w *Workspace) WriteTextFile(path, content string) error {
	rel, err := w.resolve(path)
	if err != nil {
		return err
	}
	root, err := os.OpenRoot(w.real)
	if err != nil {
		return fmt.Errorf("open workspace %s: %w", w.dir, err)
	}
	defer root.Close()
	if dir := filepath.Dir(rel); dir != "." {
		if err := root.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("write %s: create parent directory: %w", path, err)
		}
	}
	if err := root.WriteFile(rel, []byte(content), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// resolve turns an absolute path from the agent into a symlink-free path
// relative to the workspace's real directory, or refuses it.
func (w *Workspace) resolve(path string) (string, error) {
	if !filepath.IsAbs(path) {
		return "", fmt.Errorf("refused %s: the path must be absolute (inside %s)", path, w.dir)
	}
	clean := filepath.Clean(path)
	resolved, err := resolveExisting(clean)
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", path, err)
	}
	rel, ok := within(w.real, resolved)
	if !ok {
		_, inDir := within(w.dir, clean)
		_, inReal := within(w.real, clean)
		if inDir || inReal {
			return "", fmt.Errorf("refused %s: it resolves through a symlink to %s, %w %s", path, resolved, ErrOutsideWorkspace, w.dir)
		}
		return "", fmt.Errorf("refused %s: %w %s", path, ErrOutsideWorkspace, w.dir)
	}
	if rel == "." {
		return "", fmt.Errorf("refused %s: it is the workspace directory itself, not a file", path)
	}
	return rel, nil
}

// resolveExisting resolves symlinks in the deepest existing ancestor of p and
// appends the components that do not exist yet (a file about to be written).
// A dangling symlink counts as existing: it is followed to where the write
// would land.
func resolveExisting(p string) (string, error) {
	return resolveExistingDepth(p, 0)
}

func resolveExistingDepth(p string, depth int) (string, error) {
	if depth > 40 {
		return "", fmt.Errorf("resolve %s: too many levels of symbolic links", p)
	}
	var missing []string
	cur := p
	for {
		real, err := filepath.EvalSymlinks(cur)
		if err == nil {
			return filepath.Join(append([]string{real}, missing...)...), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		if fi, lerr := os.Lstat(cur); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			target, err := os.Readlink(cur)
			if err != nil {
				return "", err
			}
			if !filepath.IsAbs(target) {
				target = filepath.Join(filepath.Dir(cur), target)
			}
			return resolveExistingDepth(filepath.Join(append([]string{target}, missing...)...), depth+1)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return "", err
		}
		missing = append([]string{filepath.Base(cur)}, missing...)
		cur = parent
	}
}

// within reports whether p (clean, absolute) is dir or below it, and returns
// p relative to dir.
func within(dir, p string) (string, bool) {
	rel, err := filepath.Rel(dir, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return rel, true
}

// sliceLines returns limit lines of s starting at 1-based line; zero values
// mean from the first line and to the last.
func sliceLines(s string, line, limit int) string {
	if line <= 1 && limit <= 0 {
		return s
	}
	lines := strings.SplitAfter(s, "\n")
	start := 0
	if line > 1 {
		start = min(line-1, len(lines))
	}
	end := len(lines)
	if limit > 0 {
		end = min(start+limit, end)
	}
	return strings.Join(lines[start:end], "")
}
