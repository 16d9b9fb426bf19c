package bot

import (
	"errors"
	"fmt"
	"os/exec"
	"testing"

	"github.com/wecodex/wecodex/acpbridge"
)

func TestExplainAgentFailure(t *testing.T) {
	_, lookErr := exec.LookPath("wecodex-no-such-agent")
	startErr := exec.Command("/nonexistent/dir/codex").Start()
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"nil", nil, ""},
		{"not in PATH",
			fmt.Errorf("start a session in /w/playground: %w", fmt.Errorf("start codex app-server (codex): %w", lookErr)),
			textAgentMissing + ` (start a session in /w/playground: start codex app-server (codex): exec: "wecodex-no-such-agent": executable file not found in $PATH)`},
		{"absolute path missing",
			acpbridge.StartFailure(fmt.Errorf("start codex app-server (/nonexistent/dir/codex): %w", startErr)),
			textAgentMissing + " (start codex app-server (/nonexistent/dir/codex): fork/exec /nonexistent/dir/codex: no such file or directory)"},
		{"401 from the provider",
			acpbridge.E(acpbridge.KindNotAuthenticated, errors.New("unexpected status 401 Unauthorized: Incorrect API key provided, url: http://127.0.0.1:1/v1/responses")),
			textAgentLogin + " (unexpected status 401 Unauthorized: Incorrect API key provided, url: http://127.0.0.1:1/v1/responses)"},
		{"provider unreachable",
			fmt.Errorf("prompt: %w", acpbridge.E(acpbridge.KindProviderUnreachable, errors.New("codex could not reach the model provider (4 attempts): Connection failed: error sending request"))),
			textAgentUnreachable + " (prompt: codex could not reach the model provider (4 attempts): Connection failed: error sending request)"},
		// The kind decides, not the words: a 401 in an error no adapter
		// marked is not read as a login problem.
		{"401 text without a kind", errors.New("tool said: status 401 Unauthorized"), "tool said: status 401 Unauthorized"},
		{"crash keeps its own words",
			acpbridge.E(acpbridge.KindCrashed, errors.New("codex app-server exited: signal: killed")),
			"codex app-server exited: signal: killed"},
		{"other failure", errors.New("stream disconnected before completion"), "stream disconnected before completion"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := explainAgentFailure(tt.err)
			if tt.err == nil {
				if got != nil {
					t.Fatalf("explainAgentFailure(nil) = %v", got)
				}
				return
			}
			if got.Error() != tt.want {
				t.Fatalf("got  %q\nwant %q", got.Error(), tt.want)
			}
			if !errors.Is(got, tt.err) {
				t.Fatal("the explained error must wrap the original")
			}
		})
	}
}
