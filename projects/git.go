package projects

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/wecodex/wecodex/childenv"
)

// git runs one git command with the registry's environment and returns its
// standard output, trimmed. A failure carries git's own words (its last
// reason, from its stderr), never the environment.
func (r *Registry) git(ctx context.Context, dir string, args ...string) (string, error) {
	return runGit(ctx, r.opts.Git, r.opts.Env, dir, args...)
}

func runGit(ctx context.Context, bin string, env []string, dir string, args ...string) (string, error) {
	// What a conversation could have written where git looks (its hooks,
	// an fsmonitor) must never run here, outside the sandbox.
	args = append([]string{"-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false"}, args...)
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	if env == nil {
		// The same allow-list as every other child of wecodex: git needs
		// PATH, HOME (its credential helpers, ssh keys), proxies and CA
		// certificates, and none of wecodex's secrets.
		env, _ = childenv.Filter(os.Environ())
	}
	// Never wait on a password prompt nobody can answer, never read the
	// operator's system config.
	cmd.Env = append(append([]string(nil), env...), "GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=", "SSH_ASKPASS=", "GCM_INTERACTIVE=never")
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return "", &GitError{Args: args, Stderr: reason(stderr.String()), Err: err}
	}
	return strings.TrimSpace(out.String()), nil
}

// GitError is a git command that failed.
type GitError struct {
	Args   []string
	Stderr string // git's reason, from its stderr (see reason)
	Err    error
}

func (e *GitError) Error() string {
	name := "git"
	for _, a := range e.Args {
		if !strings.HasPrefix(a, "-") && !strings.Contains(a, "=") && !strings.Contains(a, "/") {
			name += " " + a // the subcommand
			break
		}
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

// reason is git's own words from its stderr: its first fatal: or error:
// line (what follows is advice), else its last line.
func reason(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for _, l := range lines {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "fatal:") || strings.HasPrefix(l, "error:") {
			return l
		}
	}
	return strings.TrimSpace(lines[len(lines)-1])
}
