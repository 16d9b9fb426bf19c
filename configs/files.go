package configs

// FilesConfig is the cards.files.* section: the files an answer points at
// inside the conversation's workspace that are sent back to the chat.
type FilesConfig struct {
	// MaxCount caps the files one answer sends; the rest stay text on the
	// card, with the reason.
	MaxCount int `mapstructure:"max_count"`
	// MaxBytes caps each file; MaxTotalBytes all of one answer's together.
	MaxBytes      int64 `mapstructure:"max_bytes"`
	MaxTotalBytes int64 `mapstructure:"max_total_bytes"`
}

// Defaults of cards.files.* (bot.DefaultFiles*): 10 pictures fill one
// WeCom stream frame, 20 MiB is WeCom's cap for a file message.
const (
	DefaultFilesMaxCount      = 10
	DefaultFilesMaxBytes      = 20 << 20
	DefaultFilesMaxTotalBytes = 50 << 20
)

func validateFiles(f FilesConfig, add func(key, format string, args ...any)) {
	if f.MaxCount <= 0 {
		add("cards.files.max_count", "must be a positive number of files like %d, not %d", DefaultFilesMaxCount, f.MaxCount)
	}
	if f.MaxBytes <= 0 {
		add("cards.files.max_bytes", "must be a positive number of bytes like %d (20 MiB), not %d", DefaultFilesMaxBytes, f.MaxBytes)
	}
	switch {
	case f.MaxTotalBytes <= 0:
		add("cards.files.max_total_bytes", "must be a positive number of bytes like %d (50 MiB), not %d", DefaultFilesMaxTotalBytes, f.MaxTotalBytes)
	case f.MaxBytes > 0 && f.MaxTotalBytes < f.MaxBytes:
		add("cards.files.max_total_bytes", "must be at least cards.files.max_bytes (%d), not %d", f.MaxBytes, f.MaxTotalBytes)
	}
}
