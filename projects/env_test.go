package projects

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Without Options.Env, git runs under childenv's allow-list: what every
// child of wecodex gets (the locale's LC_* among it), never a WECODEX_
// variable. The "git" here is a script that prints its environment.
func TestGitEnvironmentIsChildenvs(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "git")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\nenv\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("WECODEX_APP_SECRET", "s3cret")
	t.Setenv("LC_CTYPE", "C.UTF-8")
	t.Setenv("UNRELATED_TOKEN", "t0ken")
	out, err := runGit(context.Background(), bin, nil, t.TempDir(), "status")
	if err != nil {
		t.Fatal(err)
	}
	env := strings.Split(out, "\n")
	for _, want := range []string{"LC_CTYPE=C.UTF-8", "GIT_TERMINAL_PROMPT=0"} {
		if !slices.Contains(env, want) {
			t.Errorf("git's environment lacks %s:\n%s", want, out)
		}
	}
	for _, refused := range []string{"WECODEX_APP_SECRET", "UNRELATED_TOKEN"} {
		if strings.Contains(out, refused) {
			t.Errorf("git's environment has %s:\n%s", refused, out)
		}
	}
}
