package acpbridge

import (
	"errors"
	"fmt"
	"os/exec"
	"testing"
)

func TestErrorKinds(t *testing.T) {
	_, lookErr := exec.LookPath("wecodex-no-such-agent")
	startErr := exec.Command("/nonexistent/dir/agent").Start()
	base := errors.New("unexpected status 401 Unauthorized")
	tests := []struct {
		name string
		err  error
		kind ErrorKind
		text string
	}{
		{"plain", base, KindOther, "unexpected status 401 Unauthorized"},
		{"marked", E(KindNotAuthenticated, base), KindNotAuthenticated, "unexpected status 401 Unauthorized"},
		{"wrapped mark", fmt.Errorf("prompt: %w", E(KindProviderUnreachable, base)), KindProviderUnreachable, "prompt: unexpected status 401 Unauthorized"},
		{"outermost wins", E(KindCrashed, E(KindNotAuthenticated, base)), KindCrashed, "unexpected status 401 Unauthorized"},
		{"not in PATH", StartFailure(fmt.Errorf("start: %w", lookErr)), KindNotInstalled,
			`start: exec: "wecodex-no-such-agent": executable file not found in $PATH`},
		{"path missing", StartFailure(startErr), KindNotInstalled, "fork/exec /nonexistent/dir/agent: no such file or directory"},
		{"other start failure", StartFailure(base), KindOther, "unexpected status 401 Unauthorized"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := KindOf(tt.err); got != tt.kind {
				t.Errorf("KindOf = %v, want %v", got, tt.kind)
			}
			if tt.err.Error() != tt.text {
				t.Errorf("text = %q, want %q", tt.err.Error(), tt.text)
			}
			if !errors.Is(tt.err, base) && tt.kind != KindNotInstalled {
				t.Error("a marked error must still wrap the original")
			}
		})
	}
	if E(KindCrashed, nil) != nil {
		t.Error("E(kind, nil) must be nil")
	}
}
