package configs

// DefaultMaxQueuedPerUser is access.max_queued_per_user's default
// (bot.DefaultMaxQueuedPerUser): as many messages as one conversation's
// queue holds, so one person can fill the queue they work in but not that
// of several chats at once.
const DefaultMaxQueuedPerUser = 5

func validateAccessLimits(a AccessConfig, add func(key, format string, args ...any)) {
	if a.MaxQueuedPerUser <= 0 {
		add("access.max_queued_per_user", "must be a positive number of messages like %d, not %d", DefaultMaxQueuedPerUser, a.MaxQueuedPerUser)
	}
}
