package configs

import "time"

// MediaConfig is the wecom.media.* section: how the AI-bot channels fetch
// the pictures, files and videos of a message. WeCom's links live 5
// minutes, so every file is fetched as the message arrives.
type MediaConfig struct {
	// Timeout bounds one download, first byte to last.
	Timeout time.Duration `mapstructure:"timeout"`
	// MaxBytes caps one file as WeCom sends it (encrypted); a larger one
	// is not fetched and the message says so.
	MaxBytes int64 `mapstructure:"max_bytes"`
}

// maxMediaBytes bounds wecom.media.max_bytes: a file is held in memory
// until it is saved, once per message that brings one.
const maxMediaBytes = 1 << 30

func validateMedia(m MediaConfig, add func(key, format string, args ...any)) {
	if m.Timeout <= 0 {
		add("wecom.media.timeout", "must be a positive duration like 30s, not %s", m.Timeout)
	}
	switch {
	case m.MaxBytes <= 0:
		add("wecom.media.max_bytes", "must be a positive number of bytes like 20971520 (20 MiB), not %d", m.MaxBytes)
	case m.MaxBytes > maxMediaBytes:
		add("wecom.media.max_bytes", "must be at most %d (1 GiB): each file is held in memory; not %d", int64(maxMediaBytes), m.MaxBytes)
	}
}
