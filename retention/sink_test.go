package retention_test

import (
	"context"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge"
)

// nopSink takes a turn's updates and declines what it asks.
type nopSink struct{}

func (nopSink) Update(acp.SessionUpdate) {}
func (nopSink) Notice(acpbridge.Notice)  {}
func (nopSink) RequestPermission(context.Context, acp.RequestPermissionRequest) acp.RequestPermissionResponse {
	return acpbridge.Cancelled()
}
