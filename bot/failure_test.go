package bot

import (
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/wecodex/wecodex/acpbridge"
)

// Every failure path of a turn gets one sentence on the card, chosen by the
// error's kind (or, with none, the step that failed), and none of the
// error's paths or ids.
func TestFailureText(t *testing.T) {
	const (
		stateDir  = "/var/lib/wecodex"
		workspace = stateDir + "/workspaces/single_bob-c0befcec46cc"
		codexHome = stateDir + "/codex-home"
		threadID  = "019a7c3e-5b1d-7e42-9f0a-3c2d1e0f4b5a"
	)
	_, lookErr := exec.LookPath("wecodex-no-such-agent")
	startErr := exec.Command("/nonexistent/dir/codex").Start()
	inSession := func(err error) error {
		return &stepError{stepStartSession, fmt.Errorf("start a session in %s: %w", workspace, err)}
	}
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"start session", inSession(fmt.Errorf("start codex thread: thread/start: %w", errors.New("codex: permission denied: "+workspace+" (code -32603)"))),
			textStartFailed},
		{"start session on a hung server", inSession(fmt.Errorf("start codex thread: thread/start: %w",
			acpbridge.E(acpbridge.KindHung, errors.New("codex app-server stopped answering and was restarted; send the message again")))),
			textAgentHung},
		{"workspace", &stepError{stepStartSession, fmt.Errorf("mkdir %s: permission denied", workspace)}, textStartFailed},
		{"resume", &stepError{stepResume, fmt.Errorf("resume session %s: %w", threadID, errors.New("context deadline exceeded"))}, textResumeFailed},
		{"prompt", fmt.Errorf("resume codex thread %s: %w", threadID, errors.New("codex: no rollout found in "+codexHome+"/sessions (code -32600)")),
			textTurnFailed},
		{"turn failed", errors.New("stream disconnected before completion: request id: req_123"), textTurnFailed},
		{"hung", acpbridge.E(acpbridge.KindHung, errors.New("codex app-server stopped answering and was restarted; send the message again")), textAgentHung},
		{"crashed", acpbridge.E(acpbridge.KindCrashed, errors.New("codex app-server exited: signal: killed; send the message again")), textAgentCrashed},
		{"crashed again", fmt.Errorf("prompt: %w", acpbridge.E(acpbridge.KindCrashed, errors.New("codex app-server exited again while the interrupted work continued; send the message again"))),
			textAgentCrashed},
		{"provider unreachable",
			fmt.Errorf("prompt: %w", acpbridge.E(acpbridge.KindProviderUnreachable, errors.New("codex could not reach the model provider (4 attempts): Connection failed: error sending request"))),
			textAgentUnreachable},
		{"not logged in",
			acpbridge.E(acpbridge.KindNotAuthenticated, errors.New("unexpected status 401 Unauthorized: Incorrect API key provided, url: http://127.0.0.1:1/v1/responses")),
			textAgentLogin},
		{"not in PATH", inSession(fmt.Errorf("start codex app-server (codex): %w", lookErr)), textAgentMissing},
		{"absolute path missing", acpbridge.StartFailure(fmt.Errorf("start codex app-server (/nonexistent/dir/codex): %w", startErr)), textAgentMissing},
		// The kind decides, not the words: a 401 in an error no adapter
		// marked is not read as a login problem.
		{"401 text without a kind", errors.New("tool said: status 401 Unauthorized"), textTurnFailed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := failureText(tt.err)
			if got != tt.want {
				t.Fatalf("got  %q\nwant %q", got, tt.want)
			}
			oneSentence(t, got)
			for _, secret := range []string{stateDir, workspace, codexHome, threadID, "/nonexistent", "127.0.0.1", "req_123"} {
				if strings.Contains(got, secret) {
					t.Errorf("%q shows %q", got, secret)
				}
			}
		})
	}
}

// oneSentence fails t unless text is one sentence: it ends with a period
// and has no other sentence end inside.
func oneSentence(t *testing.T, text string) {
	t.Helper()
	if !strings.HasSuffix(text, ".") || strings.Contains(strings.TrimSuffix(text, "."), ". ") || strings.Contains(text, "\n") {
		t.Errorf("%q is not one sentence", text)
	}
}
