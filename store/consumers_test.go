package store_test

import (
	"github.com/wecodex/wecodex/acpbridge"
	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/bot/wecom/app"
	"github.com/wecodex/wecodex/bot/wecom/longconn"
	"github.com/wecodex/wecodex/bot/wecom/webhook"
	"github.com/wecodex/wecodex/store"
)

// Each purpose's type is the interface one consumer declares, matched
// structurally (the store imports none of them).
var (
	_ bot.Leases           = (*store.Queue)(nil)
	_ bot.Dedupe           = (*store.Dedupe)(nil)
	_ bot.Conversations    = (*store.Conversations)(nil)
	_ bot.Attachments      = (*store.Attachments)(nil)
	_ bot.Replicas         = (*store.Replicas)(nil)
	_ bot.ApprovalStore    = (*store.Approvals)(nil)
	_ bot.LimitStore       = (*store.Limits)(nil)
	_ webhook.Store        = (*store.Webhook)(nil)
	_ longconn.Store       = (*store.LongConn)(nil)
	_ app.Store            = (*store.App)(nil)
	_ acpbridge.PhaseStore = (*store.Phases)(nil)
)
