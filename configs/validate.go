package configs

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"strings"
	"time"
)

// Problem is one thing wrong with a configuration.
type Problem struct {
	Key     string // the full key, e.g. wecom.aibot.encoding_aes_key
	Message string // what is wrong and what to do
}

func (p Problem) Error() string { return p.Key + ": " + p.Message }

// Problems is every problem Validate found, in key order of the file layout.
type Problems []Problem

func (ps Problems) Error() string {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = p.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap lets errors.As find a single Problem.
func (ps Problems) Unwrap() []error {
	out := make([]error, len(ps))
	for i, p := range ps {
		out[i] = p
	}
	return out
}

// Validate checks the whole configuration and returns every problem at once
// as Problems, or nil.
//
// Channels: the AI bot is enabled when any of wecom.aibot.token,
// encoding_aes_key, bot_id or secret is set, or the playground is on. Webhook
// mode (and the playground, which signs callbacks to our own webhook) then
// needs token and a valid encoding_aes_key, except that the playground with
// neither set gets ephemeral ones from serve (EphemeralAIBotCredentials);
// long-connection mode needs bot_id and secret.
//
// Safety: with the playground on, server.addr must be a loopback address
// (whoever reaches the playground drives the agent), and so it must with the
// well-known credentials the local config once shipped. The self-built app is all-or-nothing: set corp_id, agent_id,
// secret, token and encoding_aes_key, or none of them. Neither channel is
// required: serve still answers health checks without one.
func (c *Config) Validate() error {
	var ps Problems
	add := func(key, format string, args ...any) {
		ps = append(ps, Problem{Key: key, Message: fmt.Sprintf(format, args...)})
	}
	oneOf := func(key, val string, allowed ...string) {
		for _, a := range allowed {
			if val == a {
				return
			}
		}
		add(key, "must be one of %s, not %q", strings.Join(allowed, ", "), val)
	}
	positive := func(key string, d time.Duration) {
		if d <= 0 {
			add(key, "must be a positive duration like 500ms or 30m, not %s", d)
		}
	}
	path := func(key, val string) {
		if !strings.HasPrefix(val, "/") {
			add(key, "must be a URL path starting with /, not %q", val)
		}
	}
	aesKey := func(key, val string) {
		switch {
		case len(val) != 43:
			add(key, "must be 43 characters (the EncodingAESKey from the WeCom admin console), not %d", len(val))
		case !validAESKey(val):
			add(key, "must be base64 letters, digits, + and / only (the EncodingAESKey from the WeCom admin console)")
		}
	}
	absolute := func(key, val string) {
		if !filepath.IsAbs(val) {
			add(key, "must be an absolute path like /usr/local/go, not %q", val)
		}
	}
	required := func(key, val, what string) {
		if strings.TrimSpace(val) == "" {
			add(key, "required %s", what)
		}
	}

	validateMedia(c.WeCom.Media, add)
	validateSchedules(c, add)
	validateAudit(c, add)
	validateAllowedHosts(c.WeCom.AllowedHosts, add)
	validateMetrics(c.Metrics, add)
	validateProjects(c, add)
	oneOf("log.level", c.Log.Level, "debug", "info", "warn", "error")
	oneOf("log.format", c.Log.Format, "text", "json")

	if _, _, err := net.SplitHostPort(c.Server.Addr); err != nil {
		add("server.addr", "must be host:port or :port (like :8080), not %q", c.Server.Addr)
	} else if !Loopback(c.Server.Addr) && c.Playground.Enabled {
		add("server.addr", "must be a loopback address like 127.0.0.1:8080 while playground.enabled is true, not %q: "+
			"whoever reaches the playground drives the agent; listen on loopback, or set playground.enabled: false to serve WeCom on this address", c.Server.Addr)
	}

	positive("server.drain_timeout", c.Server.DrainTimeout)

	r := c.Redis
	addrs := r.Addrs()
	for _, a := range addrs {
		if _, _, err := net.SplitHostPort(a); err != nil {
			add("redis.addr", "%q is not host:port; give one address, several comma-separated for a Cluster, or leave empty for the embedded store", a)
		}
	}
	if r.MasterName != "" && len(addrs) == 0 {
		add("redis.master_name", "needs redis.addr set to the Sentinel addresses")
	}
	if r.DB < 0 {
		add("redis.db", "must be 0 or more, not %d", r.DB)
	}
	if r.DB != 0 && len(addrs) > 1 && r.MasterName == "" {
		add("redis.db", "must be 0 with a Redis Cluster (several redis.addr); Cluster has only database 0")
	}
	if r.Prefix == "" {
		add("redis.prefix", "must not be empty; it keeps wecodex's keys apart from others' (default \"wecodex:\")")
	}
	if strings.ContainsAny(r.Prefix, "{}") {
		add("redis.prefix", "must not contain { or }: they would change Redis Cluster hash tags")
	}

	b := c.WeCom.AIBot
	oneOf("wecom.aibot.mode", b.Mode, AIBotWebhook, AIBotLongConn)
	path("wecom.aibot.path", b.Path)
	positive("wecom.aibot.stream_window", b.StreamWindow)
	if b.StreamWindow > 6*time.Minute {
		add("wecom.aibot.stream_window", "must be at most 6m: WeCom stops asking for stream frames 6 minutes after the message")
	}
	if c.AIBotWebhook() && !c.EphemeralAIBotCredentials() {
		const why = "for the AI bot webhook"
		required("wecom.aibot.token", b.Token, "(the Token from the WeCom admin console) "+why)
		if b.EncodingAESKey == "" {
			add("wecom.aibot.encoding_aes_key", "required (the 43-character EncodingAESKey from the WeCom admin console) %s", why)
		}
	}
	if b.EncodingAESKey != "" {
		aesKey("wecom.aibot.encoding_aes_key", b.EncodingAESKey)
	}
	if publicCredentials(b.Token, b.EncodingAESKey) && !Loopback(c.Server.Addr) {
		add("wecom.aibot.encoding_aes_key", "is the well-known local playground key (wecom.aibot.token %q is too), published with wecodex: "+
			"anyone could sign callbacks with it, so wecodex only listens on loopback with it, not on %q; "+
			"set wecom.aibot.token and wecom.aibot.encoding_aes_key to the Token and EncodingAESKey from the WeCom admin console, "+
			"or remove both to let the playground make its own, or set server.addr to 127.0.0.1:8080", publicToken, c.Server.Addr)
	}
	if c.AIBotEnabled() && b.Mode == AIBotLongConn {
		required("wecom.aibot.bot_id", b.BotID, "(the Bot ID from the WeCom admin console) in longconn mode")
		required("wecom.aibot.secret", b.Secret, "(the Secret from the WeCom admin console) in longconn mode")
		if u, err := url.Parse(b.WSURL); err != nil || (u.Scheme != "wss" && u.Scheme != "ws") || u.Host == "" {
			add("wecom.aibot.ws_url", "must be a ws:// or wss:// URL like %s, not %q", DefaultAIBotWSURL, b.WSURL)
		} else if u.Scheme == "ws" && !loopbackHost(u.Hostname()) {
			add("wecom.aibot.ws_url", "must be wss:// (like %s): plain ws:// would send the bot's secret and every message unencrypted; it is allowed only to a loopback host, not %q", DefaultAIBotWSURL, u.Hostname())
		}
	}

	a := c.WeCom.App
	path("wecom.app.path", a.Path)
	if a.Path == b.Path {
		add("wecom.app.path", "must differ from wecom.aibot.path (both are %q)", a.Path)
	}
	if c.AppEnabled() {
		const all = "for the self-built app (set all of wecom.app.corp_id, agent_id, secret, token, encoding_aes_key, or none)"
		required("wecom.app.corp_id", a.CorpID, all)
		required("wecom.app.agent_id", a.AgentID, all)
		required("wecom.app.secret", a.Secret, all)
		required("wecom.app.token", a.Token, all)
		required("wecom.app.encoding_aes_key", a.EncodingAESKey, all)
		if u, err := url.Parse(a.APIBase); a.APIBase != "" && (err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || (u.Path != "" && u.Path != "/")) {
			add("wecom.app.api_base", "must be an http:// or https:// base URL like %s, not %q", DefaultAppAPIBase, a.APIBase)
		} else if a.APIBase != "" && u.Scheme == "http" && !loopbackHost(u.Hostname()) {
			add("wecom.app.api_base", "must be https:// (like %s): plain http:// would send the app's secret and access token unencrypted; it is allowed only to a loopback host, not %q", DefaultAppAPIBase, u.Hostname())
		}
		if a.AgentID != "" && strings.Trim(a.AgentID, "0123456789") != "" {
			add("wecom.app.agent_id", "must be the app's numeric AgentId, not %q", a.AgentID)
		}
		if a.EncodingAESKey != "" {
			aesKey("wecom.app.encoding_aes_key", a.EncodingAESKey)
		}
		if publicCredentials(a.Token, a.EncodingAESKey) && !Loopback(c.Server.Addr) {
			add("wecom.app.encoding_aes_key", "is the well-known local playground key, published with wecodex: anyone could sign callbacks with it; "+
				"set wecom.app.token and wecom.app.encoding_aes_key to the values from the app's \"receive messages\" settings in the WeCom admin console")
		}
	}

	g := c.Agent
	oneOf("agent.kind", g.Kind, AgentCodex, AgentACP)
	switch g.Kind {
	case AgentCodex:
		required("agent.codex.bin", g.Codex.Bin, "(the codex executable: a name looked up in PATH, or a path)")
		oneOf("agent.codex.sandbox", g.Codex.Sandbox, "read-only", "workspace-write", "danger-full-access")
		if g.Codex.ApprovalPolicy == "untrusted" {
			add("agent.codex.approval_policy", "\"untrusted\" is rejected by Codex app-server; use on-request or never")
		} else {
			oneOf("agent.codex.approval_policy", g.Codex.ApprovalPolicy, "on-request", "never")
		}
		for k := range g.Codex.Config {
			if strings.TrimSpace(k) == "" {
				add("agent.codex.config", "has an empty key")
			}
		}
	case AgentACP:
		if len(g.ACP.Command) == 0 || strings.TrimSpace(g.ACP.Command[0]) == "" {
			add("agent.acp.command", "required when agent.kind is acp: the agent's argv, e.g. [npx, -y, some-acp-agent]")
		}
	}
	validateAgentEnv("agent.codex.env", g.Codex.Env, add)
	validateAgentEnv("agent.codex.env_file", g.Codex.EnvFile, add)
	validateAgentEnv("agent.acp.env", g.ACP.Env, add)
	validateAgentEnv("agent.acp.env_file", g.ACP.EnvFile, add)
	validateModels("agent.models", g.Models, add)
	for i, p := range g.Sandbox.Read {
		absolute(fmt.Sprintf("agent.sandbox.read[%d]", i), p)
	}
	for i, p := range g.Sandbox.Deny {
		absolute(fmt.Sprintf("agent.sandbox.deny[%d]", i), p)
	}
	required("agent.workspace_root", g.WorkspaceRoot, "(the directory under which each conversation gets its own working directory)")
	positive("agent.turn_timeout", g.TurnTimeout)
	positive("agent.codex.idle_unload", g.Codex.IdleUnload)
	oneOf("agent.approval", g.Approval, ApprovalAsk, ApprovalAllow, ApprovalDeny)
	oneOf("agent.busy", g.Busy, BusyQueue, BusySteer)
	oneOf("agent.rerun_orphaned", g.RerunOrphaned, RerunOnce, RerunNever)
	positive("agent.approval_timeout", g.ApprovalTimeout)
	if g.MaxConcurrentTurns <= 0 {
		add("agent.max_concurrent_turns", "must be a positive number of turns like %d, not %d", DefaultMaxConcurrentTurns, g.MaxConcurrentTurns)
	}

	validateAccessLimits(c.Access, add)
	for i, u := range c.Access.AllowUsers {
		if strings.TrimSpace(u) == "" {
			add(fmt.Sprintf("access.allow_users[%d]", i), "is empty; remove it or give a WeCom userid")
		}
	}
	for i, u := range c.Access.Admins {
		switch strings.TrimSpace(u) {
		case "*":
			add(fmt.Sprintf("access.admins[%d]", i), "must not be \"*\": an admin decides every approval and runs every command, so name each admin's WeCom userid")
		case "":
			add(fmt.Sprintf("access.admins[%d]", i), "is empty; remove it or give a WeCom userid")
		}
	}

	for i, u := range c.Access.Approvers {
		switch strings.TrimSpace(u) {
		case "":
			add(fmt.Sprintf("access.approvers[%d]", i), "is empty; remove it or give a WeCom userid (or requester)")
		case "*":
			add(fmt.Sprintf("access.approvers[%d]", i), "\"*\" would let anyone run commands outside the sandbox; list userids (or requester)")
		}
	}

	oneOf("cards.progress_style", c.Cards.ProgressStyle, ProgressThink, ProgressQuote)
	positive("cards.update_interval", c.Cards.UpdateInterval)
	validateFiles(c.Cards.Files, add)

	if c.Playground.Enabled {
		required("playground.user", c.Playground.User, "when playground.enabled is true (the userid the playground sends as)")
	}

	if len(ps) == 0 {
		return nil
	}
	return ps
}

// The credentials configs/wecodex.yaml once shipped for the playground. They
// are public (in this repository's history), so a server that uses them must
// not be reachable from elsewhere: anyone could sign and encrypt callbacks.
const (
	publicToken  = "wecodex-local-playground"
	publicAESKey = "wecodexLocalPlaygroundKeyNotASecretNotProd0"
)

func publicCredentials(token, aesKey string) bool {
	return token == publicToken || aesKey == publicAESKey
}

// Loopback reports whether a listen address (host:port) is on loopback only:
// localhost, 127.0.0.0/8 or ::1. An empty host (":8080") listens on every
// interface; any other name may resolve anywhere.
func Loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	return loopbackHost(host)
}

// loopbackHost reports whether host (no port) names this machine:
// localhost, 127.0.0.0/8 or ::1.
func loopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// validAESKey reports whether key is a WeCom EncodingAESKey: 43 base64
// characters that, with "=" appended, decode to a 32-byte AES-256 key.
func validAESKey(key string) bool {
	raw, err := base64.StdEncoding.DecodeString(key + "=")
	return err == nil && len(raw) == 32
}

// Check loads the config at path (see Load) and validates it: every problem
// in the file, the environment and the values comes back at once as
// Problems, a key Load could not read not reported again by Validate. The
// Config is nil only when the file could not be read or parsed.
func Check(path string) (*Config, []Warning, error) {
	cfg, warns, err := Load(path)
	if cfg == nil {
		return nil, warns, err
	}
	var ps Problems
	if err != nil && !errors.As(err, &ps) {
		return nil, warns, err
	}
	bad := map[string]bool{}
	for _, p := range ps {
		bad[p.Key] = true
		// A secret whose file could not be read is not missing too.
		if k := secretOfFileKey(p.Key); k != "" {
			bad[k] = true
		}
	}
	var vs Problems
	if errors.As(cfg.Validate(), &vs) {
		for _, p := range vs {
			if !bad[p.Key] {
				ps = append(ps, p)
			}
		}
	}
	if len(ps) == 0 {
		return cfg, warns, nil
	}
	return cfg, warns, ps
}

// validateMetrics checks metrics.*: pprof shows the process's insides (heap,
// goroutine stacks with message text in flight), so it is only served on a
// listener of its own that the admin chose to keep internal.
func validateMetrics(m MetricsConfig, add func(key, format string, args ...any)) {
	if m.Addr != "" {
		if _, _, err := net.SplitHostPort(m.Addr); err != nil {
			add("metrics.addr", "must be host:port or :port (like 127.0.0.1:9090), or empty to serve /metrics on server.addr, not %q", m.Addr)
		}
	}
	switch {
	case m.Pprof && m.Addr == "":
		add("metrics.pprof", "needs metrics.addr: /debug/pprof is never served on server.addr; set metrics.addr (like 127.0.0.1:9090) or metrics.pprof: false")
	case m.Pprof && !Loopback(m.Addr):
		add("metrics.pprof", "needs a loopback metrics.addr (like 127.0.0.1:9090), not %q: /debug/pprof shows goroutine stacks and heap with messages in flight, so it is served only on this machine; reach it with an SSH tunnel, or set metrics.pprof: false", m.Addr)
	}
}
