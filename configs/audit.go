package configs

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// AuditConfig is the audit.* section: where the audit trail goes.
type AuditConfig struct {
	// File is appended one JSON record per line; "" writes no file.
	// Rotation is logrotate's (copytruncate; README).
	File string `mapstructure:"file"`
	// Redis adds every record to a Redis stream under redis.prefix, which
	// `wecodex audit` and `wecodex usage` read.
	Redis bool `mapstructure:"redis"`
	// MaxLen is about how many records the stream keeps.
	MaxLen int64 `mapstructure:"max_len"`
	// IncludeText puts a message's text in its record.
	IncludeText bool `mapstructure:"include_text"`
}

// Enabled says whether any audit record is written.
func (a AuditConfig) Enabled() bool { return a.File != "" || a.Redis }

// LimitsConfig is the limits.* section: per user, across replicas; 0 is
// no limit, and admins are never limited.
type LimitsConfig struct {
	TurnsPerUserPerHour int   `mapstructure:"turns_per_user_per_hour"`
	TokensPerUserPerDay int64 `mapstructure:"tokens_per_user_per_day"`
}

// RetentionConfig is the retention.* section: how long chat content lives.
// A zero age keeps it.
type RetentionConfig struct {
	// CodexHistory lets Codex append every prompt to CODEX_HOME/history.jsonl
	// (its history.persistence save-all); off, Codex keeps none.
	CodexHistory bool `mapstructure:"codex_history"`
	// Threads is how long a Codex thread may stay idle before it and its
	// rollout are deleted.
	Threads time.Duration `mapstructure:"threads"`
	// Attachments is how long a file a message brought stays in its
	// workspace.
	Attachments time.Duration `mapstructure:"attachments"`
	// Audit is how long audit records are kept in the stream; audit.file's
	// rotated files are logrotate's to age (maxage).
	Audit time.Duration `mapstructure:"audit"`
}

// DefaultAuditMaxLen is audit.max_len's default.
const DefaultAuditMaxLen = 1_000_000

func validateAudit(c *Config, add func(key, format string, args ...any)) {
	if c.Audit.MaxLen <= 0 {
		add("audit.max_len", "must be a positive number of records like %d, not %d", DefaultAuditMaxLen, c.Audit.MaxLen)
	}
	if c.Limits.TurnsPerUserPerHour < 0 {
		add("limits.turns_per_user_per_hour", "must be 0 (no limit) or a positive number of turns, not %d", c.Limits.TurnsPerUserPerHour)
	}
	if c.Limits.TokensPerUserPerDay < 0 {
		add("limits.tokens_per_user_per_day", "must be 0 (no limit) or a positive number of tokens, not %d", c.Limits.TokensPerUserPerDay)
	}
	for _, r := range []struct {
		key string
		d   time.Duration
	}{{"retention.threads", c.Retention.Threads}, {"retention.attachments", c.Retention.Attachments}, {"retention.audit", c.Retention.Audit}} {
		if r.d < 0 {
			add(r.key, "must be 0 (keep) or an age like 90d or 12h, not %s", r.d)
		}
	}
}

// parseDuration is time.ParseDuration that also reads days ("90d"), which
// retention ages are naturally written in.
func parseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if d, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.ParseFloat(d, 64)
		if err != nil {
			return 0, fmt.Errorf("time: invalid duration %q", s)
		}
		return time.Duration(n * float64(24*time.Hour)), nil
	}
	return time.ParseDuration(s)
}
