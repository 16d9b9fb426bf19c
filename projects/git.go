package projects

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
)

// git runs one git command with the registry's environment and returns its
// standard output, trimmed. A failure carries git's own words (its last
// line of stderr), never the environment.
func (r *Registry) git(ctx context.Context, dir string, args ...string) (string, error) {
	return runGit(ctx, r.opts.Git, r.opts.Env, dir, args...)
}

func runGit(ctx context.Context, bin string, env []string, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	if env == nil {
		env = minimalEnv()
	}
	// Never wait on a password prompt nobody can answer, never read the
	// operator's system config.
	cmd.Env = append(append([]string(nil), env...), "GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=", "SSH_ASKPASS=", "GCM_INTERACTIVE=never")
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return "", &GitError{Args: args, Stderr: lastLine(stderr.String()), Err: err}
	}
	return strings.TrimSpace(out.String()), nil
}

// GitError is a git command that failed.
type GitError struct {
	Args   []string
	Stderr string // git's last line of stderr
	Err    error
}

func (e *GitError) Error() string {
	name := "git"
	if len(e.Args) > 0 {
		name += " " + e.Args[0]
	}
	if e.Stderr != "" {
		return name + ": " + e.Stderr
	}
	return fmt.Sprintf("%s: %v", name, e.Err)
}

func (e *GitError) Unwrap() error { return e.Err }

// isGitError reports whether err is git's answer rather than a failure to
// run it or a cancelled context.
func isGitError(err error) bool {
	var g *GitError
	var x *exec.ExitError
	return errors.As(err, &g) && errors.As(g.Err, &x)
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
