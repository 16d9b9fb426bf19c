// Package serve serves an acpbridge.Agent as an ACP agent on stdio, the way
// `wecodex codex-acp` offers the built-in Codex bridge to any ACP client.
package serve
