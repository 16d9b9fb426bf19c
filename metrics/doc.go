// Package metrics exports what wecodex does in the Prometheus text format:
// Metrics implements bot.Observer over a registry the caller passes in (no
// global state), and RedisHook counts failed Redis commands. cmd/wecodex
// mounts Handler at /metrics.
package metrics
