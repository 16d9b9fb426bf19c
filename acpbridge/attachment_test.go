package acpbridge

import (
	"os"
	"path/filepath"
	"testing"
)

// A file is saved under its name, under a suffixed name when another file
// holds it, and not again when it holds exactly these bytes already.
func TestSaveAttachmentNames(t *testing.T) {
	ws := t.TempDir()
	for i, tc := range []struct {
		name, data, want string
	}{
		{"build.log", "one", "attachments/build.log"},
		{"build.log", "two", "attachments/build-2.log"},
		{"build.log", "one", "attachments/build.log"}, // a re-run's same file
		{"build.log", "three", "attachments/build-3.log"},
		{".env", "x", "attachments/.env"},
		{".env", "y", "attachments/.env-2"},
		{"noext", "a", "attachments/noext"},
		{"noext", "b", "attachments/noext-2"},
	} {
		got, err := SaveAttachment(ws, tc.name, []byte(tc.data))
		if err != nil || got != tc.want {
			t.Fatalf("%d: SaveAttachment(%q, %q) = %q, %v; want %q", i, tc.name, tc.data, got, err, tc.want)
		}
		if have, err := os.ReadFile(filepath.Join(ws, got)); err != nil || string(have) != tc.data {
			t.Fatalf("%d: %s holds %q, %v", i, got, have, err)
		}
	}
}

// A symlink the agent left in the workspace cannot lead a save outside it.
func TestSaveAttachmentStaysInTheWorkspace(t *testing.T) {
	ws, outside := t.TempDir(), t.TempDir()
	if err := os.Symlink(outside, filepath.Join(ws, AttachmentsDir)); err != nil {
		t.Fatal(err)
	}
	if got, err := SaveAttachment(ws, "x.txt", []byte("secret")); err == nil {
		t.Fatalf("saved through a symlink out of the workspace as %s", got)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Fatalf("the directory outside holds %d files", len(entries))
	}
}

// A name that is not one safe path element is replaced; a safe one is kept.
func TestSafeName(t *testing.T) {
	for _, tc := range []struct{ name, mime, want string }{
		{"report.pdf", "application/pdf", "report.pdf"},
		{"截图 1.png", "image/png", "截图 1.png"},
		{"../etc/passwd", "", "attachment-3"},
		{"a/b.png", "image/png", "attachment-3.png"},
		{`a\b.jpg`, "image/jpeg", "attachment-3.jpg"},
		{"..", "", "attachment-3"},
		{".", "", "attachment-3"},
		{"", "image/webp", "attachment-3.webp"},
		{"line\nbreak", "", "attachment-3"},
		{"nul\x00", "", "attachment-3"},
		{"bad\xffutf8", "", "attachment-3"},
	} {
		if got := AttachmentName(tc.name, 2, tc.mime); got != tc.want {
			t.Errorf("AttachmentName(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}
