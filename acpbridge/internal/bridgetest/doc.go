// Package bridgetest holds what the acpbridge packages' tests share: a Sink
// that records what it was sent as lines a test compares exactly, a logger
// that writes to the test's log, the permission options Codex bridges offer,
// and small renderers. It is for tests only.
package bridgetest
