// Package external drives an ACP agent that runs as a subprocess (codex-acp,
// the Rust codex-acp, `wecodex codex-acp`) over its stdio, as an
// acpbridge.Agent: it restarts the process when it dies, kills it when it
// hangs, and routes the agent's text by the one phase rule.
package external
