// Package cli is what every wecodex command shares: the --config flag,
// loading and checking the config file, the logger, the Codex binary the
// commands run and its environment, the exit codes, and what a build is
// (its version and build id).
//
// It is small on purpose: the lean codex-acp binary (cmd/wecodex-codex-acp)
// links it, and every package it pulls in is memory that binary's editors
// pay for.
package cli
