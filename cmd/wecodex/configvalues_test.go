package main

import (
	"strings"
	"testing"

	"github.com/wecodex/wecodex/acpbridge"
	"github.com/wecodex/wecodex/acpbridge/codex"
	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/bot/wecom"
	"github.com/wecodex/wecodex/bot/wecom/webhook"
	"github.com/wecodex/wecodex/cards"
	"github.com/wecodex/wecodex/configs"
)

// TestConfigValuesMatchTheirOwners: configs writes out the names and
// defaults whose meaning lives elsewhere (it imports only viper); each must
// equal its owner's, so a default changed in one place cannot silently
// disagree with what configs documents and validates.
func TestConfigValuesMatchTheirOwners(t *testing.T) {
	for _, c := range []struct {
		what        string
		got, owners any
	}{
		{"agent.approval allow", configs.ApprovalAllow, acpbridge.ApprovalAllow},
		{"agent.approval deny", configs.ApprovalDeny, acpbridge.ApprovalDeny},
		{"access.approvers requester", configs.ApproverRequester, bot.ApproverRequester},
		{"cards.progress_style think", configs.ProgressThink, string(cards.ProgressThink)},
		{"cards.progress_style quote", configs.ProgressQuote, string(cards.ProgressQuote)},
		{"wecom.aibot.stream_window", configs.DefaultStreamWindow, webhook.DefaultStreamWindow},
		{"wecom.media.timeout", configs.DefaultMediaTimeout, wecom.DefaultMediaTimeout},
		{"wecom.media.max_bytes default", int64(configs.MaxMediaBytes), int64(wecom.DefaultMediaMaxBytes)},
		{"wecom.media.max_bytes ceiling", int64(configs.MaxMediaBytes), int64(bot.MaxAttachmentBytes)},
		{"wecom.media.max_files", configs.DefaultMediaMaxFiles, wecom.DefaultMediaMaxFiles},
		{"wecom.allowed_hosts", strings.Join(configs.DefaultAllowedHosts(), ","), strings.Join(wecom.DefaultAllowedHosts, ",")},
		{"agent.turn_timeout", configs.DefaultTurnTimeout, bot.DefaultTurnTimeout},
		{"agent.codex.idle_unload", configs.DefaultIdleUnload, codex.DefaultIdleUnload},
		{"agent.approval_timeout", configs.DefaultApprovalTimeout, bot.DefaultApprovalTimeout},
		{"cards.update_interval", configs.DefaultUpdateInterval, cards.DefaultUpdateInterval},
		{"cards.files.max_count", int64(configs.DefaultFilesMaxCount), int64(bot.DefaultFilesMaxCount)},
		{"cards.files.max_bytes", int64(configs.DefaultFilesMaxBytes), int64(bot.DefaultFilesMaxBytes)},
		{"cards.files.max_total_bytes", int64(configs.DefaultFilesMaxTotalBytes), int64(bot.DefaultFilesMaxTotalBytes)},
		{"access.max_queued_per_user", configs.DefaultMaxQueuedPerUser, bot.DefaultMaxQueuedPerUser},
		{"/effort levels", strings.Join(configs.ChatEfforts, ","), strings.Join(bot.Efforts, ",")},
		{"agent.busy values", configs.BusyQueue + "," + configs.BusySteer, bot.BusyQueue + "," + bot.BusySteer},
		{"agent.rerun_orphaned values", configs.RerunOnce + "," + configs.RerunNever, bot.RerunOnce + "," + bot.RerunNever},
	} {
		if c.got != c.owners {
			t.Errorf("%s: configs has %v, its owner %v", c.what, c.got, c.owners)
		}
	}
	d := configs.Default()
	if d.Agent.TurnTimeout != bot.DefaultTurnTimeout || d.Agent.ApprovalTimeout != bot.DefaultApprovalTimeout ||
		d.Cards.UpdateInterval != cards.DefaultUpdateInterval || d.WeCom.AIBot.StreamWindow != webhook.DefaultStreamWindow ||
		d.WeCom.Media.Timeout != wecom.DefaultMediaTimeout || d.WeCom.Media.MaxBytes != wecom.DefaultMediaMaxBytes ||
		d.Access.MaxQueuedPerUser != bot.DefaultMaxQueuedPerUser {
		t.Errorf("configs.Default() = %+v; its defaults are not the owners'", d)
	}
}
