package configs

import "time"

// The defaults and limits below are the engine's, the cards' and the
// channels' own (bot.DefaultTurnTimeout, cards.DefaultUpdateInterval, ...),
// written out again because configs imports only the standard library and
// viper: it names what each key accepts, and the packages that give the
// values their meaning must not be pulled into every config check. A test
// in cmd/wecodex, which imports both sides, fails when they drift apart.
const (
	// DefaultStreamWindow is wecom.aibot.stream_window's default
	// (webhook.DefaultStreamWindow).
	DefaultStreamWindow = 5*time.Minute + 30*time.Second
	// DefaultMediaTimeout is wecom.media.timeout's default
	// (wecom.DefaultMediaTimeout).
	DefaultMediaTimeout = 30 * time.Second
	// MaxMediaBytes is wecom.media.max_bytes's default and its ceiling: the
	// engine keeps no larger file (bot.MaxAttachmentBytes).
	MaxMediaBytes = 20 << 20
	// DefaultMaxConcurrentTurns is agent.max_concurrent_turns's default:
	// what one 2-core replica serves with first progress under a second.
	DefaultMaxConcurrentTurns = 8
	// DefaultMediaMaxFiles is wecom.media.max_files's default
	// (wecom.DefaultMediaMaxFiles).
	DefaultMediaMaxFiles = 10
	// DefaultIdleUnload is agent.codex.idle_unload's
	// (codex.DefaultIdleUnload).
	DefaultIdleUnload = 2 * time.Minute
	// DefaultTurnTimeout is agent.turn_timeout's (bot.DefaultTurnTimeout).
	DefaultTurnTimeout = 30 * time.Minute
	// DefaultApprovalTimeout is agent.approval_timeout's
	// (bot.DefaultApprovalTimeout).
	DefaultApprovalTimeout = 10 * time.Minute
	// DefaultUpdateInterval is cards.update_interval's
	// (cards.DefaultUpdateInterval).
	DefaultUpdateInterval = 500 * time.Millisecond
)
