// Package audit owns wecodex's audit trail: the JSON record of each event
// the engine reports (bot.AuditEvent), numbered per conversation across
// replicas, scrubbed of secrets, and written to a file (one line each)
// and/or a Redis stream; and what `wecodex audit` and `wecodex usage` make
// of the records they read back.
package audit
