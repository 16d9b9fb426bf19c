package codex

import (
	"cmp"
	"context"
	"fmt"
	"slices"

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

// overrides maps m for this Agent.
func (a *Agent) overrides(m acpbridge.Mode) (modeOverrides, error) {
	if m == "" {
		return modeOverrides{}, nil
	}
	if a.opts.Confine != nil {
		// The thread's profile carries the mode (loadIn): no override.
		if _, err := acpbridge.ParseMode(string(m)); err != nil {
			return modeOverrides{}, err
		}
		return modeOverrides{}, nil
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

// inMode is c as mode allows it, for a confined thread. Read-only turns
// every writable path into a readable one except the commands' TMPDIR,
// which tools need to run at all and which holds nothing of the
// workspace. Workspace and full keep c: full differs in who decides a
// request to leave the sandbox (the bot grants it), and a granted request
// keeps c.Deny either way.
func inMode(c Confinement, mode acpbridge.Mode) Confinement {
	if mode != acpbridge.ModeReadOnly {
		return c
	}
	out := c
	out.Read, out.Write = slices.Clone(c.Read), nil
	for _, p := range c.Write {
		if p == c.TmpDir {
			out.Write = append(out.Write, p)
		} else {
			out.Read = append(out.Read, p)
		}
	}
	return out
}

// unloadForMode unloads th, loaded in app-server generation gen, so the
// next thread/resume loads it in another mode: Codex reads a thread's
// permission profile when it loads the thread, turn/start has no field for
// one, and its sandboxPolicy would replace the profile, and with it the
// paths the profile denies (overrides refuses that). unload waits for
// thread/closed: a resume sent before it is refused ("is closing").
func (a *Agent) unloadForMode(ctx context.Context, c *conn, th *thread, gen int) error {
	if err := a.unload(ctx, c, th.id); err != nil {
		return fmt.Errorf("change the mode of codex thread %s: %w", th.id, err)
	}
	a.markUnloaded(th.id, gen)
	a.log.Info("codex thread unloaded to change its mode", "thread", th.id)
	return nil
}
