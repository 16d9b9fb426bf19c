package configs

import (
	"time"
)

// MediaConfig is the wecom.media.* section: how the AI-bot channels fetch
// the pictures, files and videos of a message. WeCom's links live 5
// minutes, so every file is fetched as the message arrives.
type MediaConfig struct {
	// Timeout bounds one download, first byte to last.
	Timeout time.Duration `mapstructure:"timeout"`
	// MaxBytes caps the files of one message together, as WeCom sends
	// them (encrypted); what would pass it is not fetched and the card
	// says so.
	MaxBytes int64 `mapstructure:"max_bytes"`
	// MaxFiles caps the files one message brings; the rest are not
	// fetched and the card says so.
	MaxFiles int `mapstructure:"max_files"`
}

func validateMedia(m MediaConfig, add func(key, format string, args ...any)) {
	if m.Timeout <= 0 {
		add("wecom.media.timeout", "must be a positive duration like 30s, not %s", m.Timeout)
	}
	switch {
	case m.MaxBytes <= 0:
		add("wecom.media.max_bytes", "must be a positive number of bytes like 20971520 (20 MiB), not %d", m.MaxBytes)
	case m.MaxBytes > MaxMediaBytes:
		// The bytes wait in Redis until the turn runs; the engine keeps
		// none larger, so a higher cap would fetch files only to drop them.
		add("wecom.media.max_bytes", "must be at most %d (20 MiB, what the engine keeps of one file), not %d", MaxMediaBytes, m.MaxBytes)
	}
	if m.MaxFiles <= 0 {
		add("wecom.media.max_files", "must be a positive number of files like %d, not %d", DefaultMediaMaxFiles, m.MaxFiles)
	}
}
