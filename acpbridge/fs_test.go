package acpbridge_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wecodex/wecodex/acpbridge"
)

// workspaceFixture lays out:
//
//	base/outside/secret.txt         "top secret\n"
//	base/ws/a.txt                   "one\ntwo\nthree\n"
//	base/ws/sub/b.txt               "bee\n"
//	base/ws/link-out     -> ../outside/secret.txt
//	base/ws/dir-out      -> ../outside
//	base/ws/dir-in       -> sub
//	base/ws/abs-in       -> <abs>/ws/sub/b.txt
//	base/ws/dangling-out -> ../outside/new.txt   (does not exist)
//	base/wslink          -> ws                   (the workspace reached via a symlink)
func workspaceFixture(t *testing.T) (base, ws string) {
	t.Helper()
	base = t.TempDir()
	ws = filepath.Join(base, "ws")
	mk := func(p, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, p string) {
		t.Helper()
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	mk(filepath.Join(base, "outside", "secret.txt"), "top secret\n")
	mk(filepath.Join(ws, "a.txt"), "one\ntwo\nthree\n")
	mk(filepath.Join(ws, "sub", "b.txt"), "bee\n")
	link("../outside/secret.txt", filepath.Join(ws, "link-out"))
	link("../outside", filepath.Join(ws, "dir-out"))
	link("sub", filepath.Join(ws, "dir-in"))
	link(filepath.Join(ws, "sub", "b.txt"), filepath.Join(ws, "abs-in"))
	link("../outside/new.txt", filepath.Join(ws, "dangling-out"))
	link("ws", filepath.Join(base, "wslink"))
	return base, ws
}

func TestWorkspaceRead(t *testing.T) {
	base, ws := workspaceFixture(t)
	w, err := acpbridge.NewWorkspace(ws)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name        string
		path        string
		line, limit int
		want        string
		refused     bool   // ErrOutsideWorkspace
		errContains string // for other errors
	}{
		{name: "file inside", path: filepath.Join(ws, "a.txt"), want: "one\ntwo\nthree\n"},
		{name: "line and limit", path: filepath.Join(ws, "a.txt"), line: 2, limit: 1, want: "two\n"},
		{name: "from a line to the end", path: filepath.Join(ws, "a.txt"), line: 3, want: "three\n"},
		{name: "limit from the start", path: filepath.Join(ws, "a.txt"), limit: 2, want: "one\ntwo\n"},
		{name: "line past the end", path: filepath.Join(ws, "a.txt"), line: 9, want: ""},
		{name: "nested file", path: filepath.Join(ws, "sub", "b.txt"), want: "bee\n"},
		{name: "symlinked dir inside", path: filepath.Join(ws, "dir-in", "b.txt"), want: "bee\n"},
		{name: "absolute symlink to inside", path: filepath.Join(ws, "abs-in"), want: "bee\n"},
		{name: "dot-dot that stays inside", path: ws + "/sub/../a.txt", want: "one\ntwo\nthree\n"},
		{name: "workspace named through a symlink", path: filepath.Join(base, "wslink", "a.txt"), want: "one\ntwo\nthree\n"},
		{name: "absolute path outside", path: filepath.Join(base, "outside", "secret.txt"), refused: true},
		{name: "system file", path: "/etc/passwd", refused: true},
		{name: "dot-dot escape", path: ws + "/../outside/secret.txt", refused: true},
		{name: "deep dot-dot escape", path: ws + "/sub/../../outside/secret.txt", refused: true},
		{name: "symlink pointing out", path: filepath.Join(ws, "link-out"), refused: true},
		{name: "symlink dir pointing out", path: filepath.Join(ws, "dir-out", "secret.txt"), refused: true},
		{name: "sibling with workspace name prefix", path: ws + "-evil/x.txt", refused: true},
		{name: "relative path", path: "a.txt", errContains: "must be absolute"},
		{name: "nonexistent file in a good dir", path: filepath.Join(ws, "sub", "nope.txt"), errContains: "no such file"},
		{name: "the workspace itself", path: ws, errContains: "workspace directory itself"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := w.ReadTextFile(tt.path, tt.line, tt.limit)
			switch {
			case tt.refused:
				if !errors.Is(err, acpbridge.ErrOutsideWorkspace) {
					t.Fatalf("ReadTextFile(%s) = %q, %v; want ErrOutsideWorkspace", tt.path, got, err)
				}
				if !strings.Contains(err.Error(), tt.path) {
					t.Errorf("error %q does not name the path", err)
				}
			case tt.errContains != "":
				if err == nil || !strings.Contains(err.Error(), tt.errContains) {
					t.Fatalf("ReadTextFile(%s) error = %v; want it to contain %q", tt.path, err, tt.errContains)
				}
			default:
				if err != nil || got != tt.want {
					t.Fatalf("ReadTextFile(%s) = %q, %v; want %q", tt.path, got, err, tt.want)
				}
			}
		})
	}
}

func TestWorkspaceWrite(t *testing.T) {
	base, ws := workspaceFixture(t)
	w, err := acpbridge.NewWorkspace(ws)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		path    string
		check   string // the file that must hold the content afterwards
		refused bool
	}{
		{name: "overwrite inside", path: filepath.Join(ws, "a.txt"), check: filepath.Join(ws, "a.txt")},
		{name: "create in a good dir", path: filepath.Join(ws, "sub", "new.txt"), check: filepath.Join(ws, "sub", "new.txt")},
		{name: "create with new parent dirs", path: filepath.Join(ws, "x", "y", "z.txt"), check: filepath.Join(ws, "x", "y", "z.txt")},
		{name: "create through symlinked dir inside", path: filepath.Join(ws, "dir-in", "c.txt"), check: filepath.Join(ws, "sub", "c.txt")},
		{name: "absolute path outside", path: filepath.Join(base, "outside", "new.txt"), refused: true},
		{name: "dot-dot escape", path: ws + "/../outside/new.txt", refused: true},
		{name: "symlink pointing out", path: filepath.Join(ws, "link-out"), refused: true},
		{name: "symlink dir pointing out", path: filepath.Join(ws, "dir-out", "new.txt"), refused: true},
		{name: "new dirs under symlink dir pointing out", path: filepath.Join(ws, "dir-out", "p", "q.txt"), refused: true},
		{name: "dangling symlink pointing out", path: filepath.Join(ws, "dangling-out"), refused: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			content := "written by " + tt.name + "\n"
			err := w.WriteTextFile(tt.path, content)
			if tt.refused {
				if !errors.Is(err, acpbridge.ErrOutsideWorkspace) {
					t.Fatalf("WriteTextFile(%s) = %v; want ErrOutsideWorkspace", tt.path, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("WriteTextFile(%s) = %v", tt.path, err)
			}
			b, err := os.ReadFile(tt.check)
			if err != nil || string(b) != content {
				t.Fatalf("%s holds %q, %v; want %q", tt.check, b, err, content)
			}
		})
	}
	// Nothing outside the workspace was created or changed.
	entries, err := os.ReadDir(filepath.Join(base, "outside"))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != "secret.txt" {
		t.Errorf("outside/ now holds %v", entries)
	}
	if b, _ := os.ReadFile(filepath.Join(base, "outside", "secret.txt")); string(b) != "top secret\n" {
		t.Errorf("secret.txt now holds %q", b)
	}
	if _, err := os.Stat(filepath.Join(base, "outside", "p")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("outside/p was created: %v", err)
	}
}
