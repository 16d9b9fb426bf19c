package codex

import (
	"cmp"
	"errors"

	"github.com/wecodex/wecodex/acpbridge"
)

// modeOverrides is what turn/start sends for a session's mode: the one place
// acpbridge's modes become Codex's sandbox and approval settings.
//
//	read-only  sandbox readOnly,        approvals as configured (else on-request)
//	workspace  sandbox workspaceWrite,  approvals as configured (else on-request)
//	full       sandbox dangerFullAccess, approval never
//
// Codex keeps a turn's overrides for the thread's later turns, so a set mode
// is sent whole every turn, approvals included: going back from full to
// workspace must undo full's "never". No mode sends nothing and leaves the
// thread's own settings.
type modeOverrides struct {
	ApprovalPolicy string         `json:"approvalPolicy,omitempty"`
	SandboxPolicy  *sandboxPolicy `json:"sandboxPolicy,omitempty"`
}

// sandboxPolicy is Codex's SandboxPolicy: {"type": "readOnly" |
// "workspaceWrite" | "dangerFullAccess"}; the other fields keep Codex's
// defaults (no network, the workspace and temp dirs writable).
type sandboxPolicy struct {
	Type string `json:"type"`
}

// errModeConfined is a mode asked of an Agent that confines threads by a
// permission profile: a sandboxPolicy override would replace the profile
// (and its deny list) for the thread, so it is refused rather than sent.
var errModeConfined = errors.New("session modes are not mapped onto confined threads (agent.codex permission profiles)")

// overrides maps m for this Agent.
func (a *Agent) overrides(m acpbridge.Mode) (modeOverrides, error) {
	if m == "" {
		return modeOverrides{}, nil
	}
	if a.opts.Confine != nil {
		return modeOverrides{}, errModeConfined
	}
	asked := cmp.Or(a.opts.ApprovalPolicy, "on-request")
	switch m {
	case acpbridge.ModeReadOnly:
		return modeOverrides{ApprovalPolicy: asked, SandboxPolicy: &sandboxPolicy{Type: "readOnly"}}, nil
	case acpbridge.ModeWorkspace:
		return modeOverrides{ApprovalPolicy: asked, SandboxPolicy: &sandboxPolicy{Type: "workspaceWrite"}}, nil
	case acpbridge.ModeFull:
		return modeOverrides{ApprovalPolicy: "never", SandboxPolicy: &sandboxPolicy{Type: "dangerFullAccess"}}, nil
	}
	_, err := acpbridge.ParseMode(string(m))
	return modeOverrides{}, err
}
