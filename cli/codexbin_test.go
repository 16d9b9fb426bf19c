package cli

import (
	"os"
	"path/filepath"
	"testing"
)

// TestFindPinnedCodex: the first directory holding an executable pinned
// Codex wins; none is "".
func TestFindPinnedCodex(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	p := filepath.Join(b, PinnedCodex)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := findPinnedCodex([]string{a, b}); got != p {
		t.Fatalf("findPinnedCodex = %q, want %q", got, p)
	}
	if got := findPinnedCodex([]string{a}); got != "" {
		t.Fatalf("findPinnedCodex without one = %q, want \"\"", got)
	}
}
