package scriptedmodel

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Model is the model name the written config asks for. It is a real Codex
// model slug so Codex uses its built-in metadata (tools, context window)
// instead of asking the network about an unknown model.
const Model = "gpt-5.5"

// HomeOptions tunes the config.toml written by [WriteCodexHome]. The zero
// value is a quiet, offline Codex that never asks for approval and may write
// in the workspace.
type HomeOptions struct {
	// ApprovalPolicy is Codex's approval_policy: "never" (default),
	// "on-request", "on-failure". ("untrusted" is rejected by app-server 0.171.)
	ApprovalPolicy string
	// SandboxMode is Codex's sandbox_mode: "workspace-write" (default),
	// "read-only" or "danger-full-access".
	SandboxMode string
	// Model overrides [Model].
	Model string
	// ExtraTOML is appended verbatim to config.toml (top-level keys must come
	// before any table, so start it with a [table] header or put top-level
	// keys only).
	ExtraTOML string
}

// WriteCodexHome writes dir/config.toml pointing Codex at the scripted model
// server at baseURL (as returned by [Server.Start], ending in /v1), with every
// feature that would reach the network, nag, or slow a test switched off.
// dir is created if missing.
func WriteCodexHome(dir, baseURL string, opts HomeOptions) error {
	if opts.ApprovalPolicy == "" {
		opts.ApprovalPolicy = "never"
	}
	if opts.SandboxMode == "" {
		opts.SandboxMode = "workspace-write"
	}
	if opts.Model == "" {
		opts.Model = Model
	}
	q := strconv.Quote
	var b strings.Builder
	fmt.Fprintf(&b, `# Written by wecodex internal/scriptedmodel: Codex talks only to the
# scripted Responses server below.
model = %s
model_provider = "scripted"
approval_policy = %s
sandbox_mode = %s
model_reasoning_summary = "detailed"
check_for_update_on_startup = false
# A login shell sources the machine's profile, whose noise would end up in
# every command's output.
allow_login_shell = false

[analytics]
enabled = false

[feedback]
enabled = false

[history]
persistence = "none"

[model_providers.scripted]
name = "wecodex scripted model"
base_url = %s
wire_api = "responses"
# No env_key: the server wants no key, and a key Codex had to find in its
# environment would have to pass wecodex's allow-listed one (agent.codex.env).
# A failed request should fail the test at once, not after back-off retries.
request_max_retries = 0
stream_max_retries = 0
`, q(opts.Model), q(opts.ApprovalPolicy), q(opts.SandboxMode), q(baseURL))
	if opts.ExtraTOML != "" {
		b.WriteString("\n")
		b.WriteString(opts.ExtraTOML)
		b.WriteString("\n")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create CODEX_HOME %s: %w", dir, err)
	}
	path := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// Env returns the environment entries a Codex process needs to use the home
// written by [WriteCodexHome]: CODEX_HOME. Append them to os.Environ()
// (later entries win).
func Env(dir string) []string {
	return []string{"CODEX_HOME=" + dir}
}
