package bot

import (
	"context"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge"
)

// ReportPermissions wraps a permission policy so each decision also shows as
// a notice on the card of the turn that asked (found by session id). Give the
// result to the agent; it looks the turn up when a request arrives, so the
// agent may be built before the engine.
func (e *Engine) ReportPermissions(decide acpbridge.PermissionFunc) acpbridge.PermissionFunc {
	return func(ctx context.Context, req acp.RequestPermissionRequest) acp.RequestPermissionResponse {
		resp := decide(ctx, req)
		if sink, ok := e.Sink(req.SessionId); ok {
			sink.Notice(acpbridge.DecisionNotice(req, resp))
		}
		return resp
	}
}
