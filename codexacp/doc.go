// Package codexacp is the codex-acp command: Codex's app-server served as
// an ACP agent on stdio, a drop-in replacement for
// @agentclientprotocol/codex-acp that sends commentary as thoughts.
//
// Two binaries run it. cmd/wecodex-codex-acp is the lean one: it links this
// package, the bridge and the config loader only, so an editor's bridge
// process maps a third of the pages the whole bot's binary would. `wecodex
// codex-acp` hands its session to that binary when it sits beside it and is
// the same build (Exec), and otherwise serves the session itself (Main).
package codexacp
