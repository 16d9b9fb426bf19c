// Package metrics exports what wecodex does in the Prometheus text format:
// Metrics implements bot.Observer over a registry the caller passes in (no
// global state) and counts what the engine does not see: platform
// callbacks, agent restarts, the long connection's state, and failed Redis
// commands (RedisError, which cmd/wecodex hands the store's CountErrors).
// cmd/wecodex wires those and mounts Handler at /metrics.
package metrics
