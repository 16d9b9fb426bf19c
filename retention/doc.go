// Package retention ages out chat content as the retention.* keys say:
// Codex threads (and their rollouts) idle too long, attachment files saved
// in the conversations' workspaces, and audit records in the Redis stream.
// A sweep is idempotent, so every replica runs its own on its own clock
// without claiming it: what one replica removed, another finds gone.
//
// It also owns `wecodex purge`: everything of one user, on request.
package retention
