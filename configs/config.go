package configs

import (
	"strings"
	"time"
)

// Config is the whole configuration. Each field's mapstructure tag is its key
// segment, so the full key of a field is the dotted path of tags
// (Config.WeCom.AIBot.EncodingAESKey is wecom.aibot.encoding_aes_key).
type Config struct {
	Log        LogConfig        `mapstructure:"log"`
	Server     ServerConfig     `mapstructure:"server"`
	Metrics    MetricsConfig    `mapstructure:"metrics"`
	Redis      RedisConfig      `mapstructure:"redis"`
	WeCom      WeComConfig      `mapstructure:"wecom"`
	Agent      AgentConfig      `mapstructure:"agent"`
	Access     AccessConfig     `mapstructure:"access"`
	Cards      CardsConfig      `mapstructure:"cards"`
	Playground PlaygroundConfig `mapstructure:"playground"`
	Projects   ProjectsConfig   `mapstructure:"projects"`
	// Schedules and Triggers are keyed by names the admin chooses; see
	// schedules.go.
	Schedules map[string]ScheduleConfig `mapstructure:"schedules"`
	Triggers  map[string]TriggerConfig  `mapstructure:"triggers"`
	Audit     AuditConfig               `mapstructure:"audit"`
	Limits    LimitsConfig              `mapstructure:"limits"`
	Retention RetentionConfig           `mapstructure:"retention"`
}

// LogConfig is the log.* section.
type LogConfig struct {
	Level  string `mapstructure:"level"`  // debug | info | warn | error
	Format string `mapstructure:"format"` // text | json
}

// ServerConfig is the server.* section.
type ServerConfig struct {
	Addr string `mapstructure:"addr"` // listen address of the HTTP server
	// DrainTimeout is how long running turns may go on finishing after the
	// first SIGTERM or SIGINT; what is still running then is cancelled and
	// its message re-queued for another replica (or the restarted process).
	DrainTimeout time.Duration `mapstructure:"drain_timeout"`
}

// MetricsConfig is the metrics.* section.
type MetricsConfig struct {
	// Addr is where /metrics (and /debug/pprof when Pprof) is served; empty
	// serves /metrics on server.addr and no pprof at all.
	Addr string `mapstructure:"addr"`
	// Pprof serves /debug/pprof on Addr, never on server.addr.
	Pprof bool `mapstructure:"pprof"`
}

// RedisConfig is the redis.* section.
type RedisConfig struct {
	// Addr is empty for the embedded in-memory Redis, one host:port for a single
	// node (or Sentinel with MasterName), several comma-separated for a Cluster.
	Addr       string `mapstructure:"addr"`
	MasterName string `mapstructure:"master_name"`
	Password   string `mapstructure:"password"`
	// PasswordFile names a file holding Password (see secretFile).
	PasswordFile string `mapstructure:"password_file"`
	DB           int    `mapstructure:"db"`
	Prefix       string `mapstructure:"prefix"`
}

// Addrs splits Addr into its addresses; nil means the embedded Redis.
func (r RedisConfig) Addrs() []string {
	var out []string
	for _, a := range strings.Split(r.Addr, ",") {
		if a = strings.TrimSpace(a); a != "" {
			out = append(out, a)
		}
	}
	return out
}

// WeComConfig is the wecom.* section.
type WeComConfig struct {
	AIBot AIBotConfig `mapstructure:"aibot"`
	App   AppConfig   `mapstructure:"app"`
	Media MediaConfig `mapstructure:"media"`
	// AllowedHosts are the only hosts media downloads and response_url
	// posts go to (see DefaultAllowedHosts and validateAllowedHosts).
	AllowedHosts []string `mapstructure:"allowed_hosts"`
}

// AI bot receive modes (wecom.aibot.mode).
const (
	AIBotWebhook  = "webhook"
	AIBotLongConn = "longconn"
)

// DefaultAIBotWSURL is WeCom's long-connection endpoint (wecom.aibot.ws_url).
const DefaultAIBotWSURL = "wss://openws.work.weixin.qq.com"

// AIBotConfig is the wecom.aibot.* section: the WeCom AI bot (智能机器人).
type AIBotConfig struct {
	Mode           string `mapstructure:"mode"`
	Path           string `mapstructure:"path"`
	Token          string `mapstructure:"token"`
	EncodingAESKey string `mapstructure:"encoding_aes_key"`
	BotID          string `mapstructure:"bot_id"`
	Secret         string `mapstructure:"secret"`
	// TokenFile, EncodingAESKeyFile and SecretFile name files holding the
	// secrets above (see secretFile).
	TokenFile          string `mapstructure:"token_file"`
	EncodingAESKeyFile string `mapstructure:"encoding_aes_key_file"`
	SecretFile         string `mapstructure:"secret_file"`
	// WSURL is the long-connection endpoint; private deployments and tests
	// override WeCom's.
	WSURL string `mapstructure:"ws_url"`
	// Welcome answers a user's first visit of the day (enter_chat) in
	// longconn mode; empty sends none.
	Welcome string `mapstructure:"welcome"`
	// StreamWindow is how long a reply keeps streaming through refresh
	// callbacks before it continues through response_url; WeCom stops
	// refreshing 6 minutes after the user's message.
	StreamWindow time.Duration `mapstructure:"stream_window"`
}

// AppConfig is the wecom.app.* section: a WeCom self-built app (自建应用).
type AppConfig struct {
	CorpID         string `mapstructure:"corp_id"`
	AgentID        string `mapstructure:"agent_id"`
	Secret         string `mapstructure:"secret"`
	Token          string `mapstructure:"token"`
	EncodingAESKey string `mapstructure:"encoding_aes_key"`
	// SecretFile, TokenFile and EncodingAESKeyFile name files holding the
	// secrets above (see secretFile).
	SecretFile         string `mapstructure:"secret_file"`
	TokenFile          string `mapstructure:"token_file"`
	EncodingAESKeyFile string `mapstructure:"encoding_aes_key_file"`
	Path               string `mapstructure:"path"`
	// APIBase is where the app API (qyapi) is; private deployments and
	// tests override WeCom's.
	APIBase string `mapstructure:"api_base"`
}

// DefaultAppAPIBase is WeCom's app API host (wecom.app.api_base).
const DefaultAppAPIBase = "https://qyapi.weixin.qq.com"

// Agent kinds (agent.kind) and approval answers (agent.approval). The
// answers that pick a fixed decision are acpbridge's (its Policy gives them
// their meaning); ask is the engine asking the user, which the wiring
// switches on.
const (
	AgentCodex = "codex"
	AgentACP   = "acp"

	ApprovalAsk   = "ask"
	ApprovalAllow = "allow"
	ApprovalDeny  = "deny"
)

// AgentConfig is the agent.* section.
type AgentConfig struct {
	Kind          string        `mapstructure:"kind"`
	Codex         CodexConfig   `mapstructure:"codex"`
	ACP           ACPConfig     `mapstructure:"acp"`
	Sandbox       SandboxConfig `mapstructure:"sandbox"`
	WorkspaceRoot string        `mapstructure:"workspace_root"`
	TurnTimeout   time.Duration `mapstructure:"turn_timeout"`
	Approval      string        `mapstructure:"approval"`
	// ApprovalTimeout is how long an agent.approval: ask request waits for
	// a decision before it is declined.
	ApprovalTimeout time.Duration `mapstructure:"approval_timeout"`
	// MaxConcurrentTurns is how many turns run at once on one replica; the
	// others wait in line, their cards showing their place.
	MaxConcurrentTurns int `mapstructure:"max_concurrent_turns"`
	// Models are the models /model may pick; empty offers all that Codex
	// lists.
	Models []string `mapstructure:"models"`
	// Busy is what a plain message sent while its conversation's turn runs
	// does: BusyQueue waits for its own turn, BusySteer is added to the
	// running one (as /steer is).
	Busy string `mapstructure:"busy"`
	// RerunOrphaned is what happens to a message whose replica died before
	// its turn finished: RerunOnce runs it once more on the replica that
	// takes over (before the messages sent after it), RerunNever fails its
	// card asking for it again. A second death always fails the card.
	RerunOrphaned string `mapstructure:"rerun_orphaned"`
}

// What happens to a message whose replica died mid-turn
// (agent.rerun_orphaned).
const (
	RerunOnce  = "once"
	RerunNever = "never"
)

// What a message sent during a running turn does (agent.busy).
const (
	BusyQueue = "queue"
	BusySteer = "steer"
)

// CodexConfig is the agent.codex.* section, used when agent.kind is codex.
type CodexConfig struct {
	Bin string `mapstructure:"bin"`
	// Config becomes one `-c key=value` per entry. Nested YAML maps are
	// flattened into dotted keys (model_providers.x.base_url); a value is the
	// text after `=`, which Codex parses as TOML (falling back to a string).
	Config         map[string]string `mapstructure:"config"`
	Sandbox        string            `mapstructure:"sandbox"`
	ApprovalPolicy string            `mapstructure:"approval_policy"`
	// Home is the CODEX_HOME Codex runs with (its login, config, threads);
	// see CodexHome for what an empty one means.
	Home string `mapstructure:"home"`
	// ContinueInterrupted carries a turn on after Codex hung or died under
	// it: its thread is resumed on the restarted app-server and continued
	// in one more turn. false fails the turn with one line instead. It is
	// read for agent.kind acp too (an agent that can load sessions).
	ContinueInterrupted bool `mapstructure:"continue_interrupted"`
	// IdleUnload is how long a conversation's thread stays loaded in the
	// app-server after its last turn. Codex lets no other process resume a
	// loaded thread, so it is also how soon `codex resume` in a terminal
	// can take a conversation over (`wecodex sessions`).
	IdleUnload time.Duration `mapstructure:"idle_unload"`
	// Env is added to the app-server's environment, which otherwise holds
	// only an allow-listed part of wecodex's (PATH, HOME, locale, proxies,
	// CA certificates); the commands Codex runs get these names too, except
	// those that look like secrets (*KEY*, *SECRET*, *TOKEN*).
	Env map[string]string `mapstructure:"env"`
	// EnvFile adds to Env each variable's value from a file: the _file
	// twin of Env, for a provider's key (see readEnvFiles).
	EnvFile map[string]string `mapstructure:"env_file"`
}

// SandboxConfig is the agent.sandbox.* section: what of the server each
// conversation's commands may reach besides their own workspace and private
// temporary directory, when agent.kind is codex and agent.codex.sandbox is
// workspace-write or read-only.
type SandboxConfig struct {
	// Read are absolute paths the commands may read: system directories and
	// toolchains (DefaultSandboxRead). Codex's platform minimum is readable
	// whatever this says.
	Read []string `mapstructure:"read"`
	// Deny are absolute paths (or * / ** patterns) the commands may not read
	// even inside Read, besides the ones wecodex always hides.
	Deny []string `mapstructure:"deny"`
}

// DefaultSandboxRead is agent.sandbox.read's default: the system directories
// that hold the shell, the C library and the toolchains packaged for the
// system or installed under /usr/local (Go in /usr/local/go, JDKs in
// /usr/lib/jvm). No home directory: a toolchain installed in one (rustup,
// nvm, pyenv) is listed by the admin who wants it.
var DefaultSandboxRead = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/etc"}

// ACPConfig is the agent.acp.* section, used when agent.kind is acp.
type ACPConfig struct {
	Command []string `mapstructure:"command"` // argv of the agent
	// Env is added to the agent's environment, which otherwise holds only
	// an allow-listed part of wecodex's, as agent.codex.env is to Codex's.
	Env map[string]string `mapstructure:"env"`
	// EnvFile adds to Env each variable's value from a file, as
	// agent.codex.env_file does.
	EnvFile map[string]string `mapstructure:"env_file"`
}

// AccessConfig is the access.* section: who may drive the agent.
type AccessConfig struct {
	AllowUsers []string `mapstructure:"allow_users"`
	AllowChats []string `mapstructure:"allow_chats"`
	Admins     []string `mapstructure:"admins"`
	// AllowExternal lets external contacts (people of another company,
	// whose callbacks carry their own from.corpid, or an external userid)
	// drive the bot when the lists above allow them; off, they are refused.
	AllowExternal bool `mapstructure:"allow_external"`
	// Approvers decide requests to leave the sandbox (agent.approval ask);
	// empty means the admins. The entry ApproverRequester lets the user who
	// asked decide too.
	Approvers []string `mapstructure:"approvers"`
	// MaxQueuedPerUser bounds one user's messages waiting for their turn
	// in every conversation and on every replica together; more are
	// refused, and the card names this key.
	MaxQueuedPerUser int `mapstructure:"max_queued_per_user"`
}

// ApproverRequester, in access.approvers, lets the user whose message asked
// decide their own request (once; /approve always stays an approver's).
const ApproverRequester = "requester"

// Progress styles (cards.progress_style), as cards renders them.
const (
	ProgressThink = "think"
	ProgressQuote = "quote"
)

// CardsConfig is the cards.* section.
type CardsConfig struct {
	ProgressStyle  string        `mapstructure:"progress_style"`
	UpdateInterval time.Duration `mapstructure:"update_interval"`
	// UsageFooter gives each finished card a line with its turn's tokens.
	UsageFooter bool        `mapstructure:"usage_footer"`
	Files       FilesConfig `mapstructure:"files"`
}

// PlaygroundConfig is the playground.* section: a local page that plays WeCom,
// signing callbacks to our own AI bot endpoint as User.
type PlaygroundConfig struct {
	Enabled bool   `mapstructure:"enabled"`
	User    string `mapstructure:"user"`
}

// Default returns the configuration used for every key a file and the
// environment leave unset.
func Default() *Config {
	return &Config{
		Log:    LogConfig{Level: "info", Format: "text"},
		Server: ServerConfig{Addr: ":8080", DrainTimeout: 2 * time.Minute},
		Redis:  RedisConfig{Prefix: "wecodex:"},
		WeCom: WeComConfig{
			AIBot:        AIBotConfig{Mode: AIBotWebhook, Path: "/wecom/aibot", WSURL: DefaultAIBotWSURL, StreamWindow: DefaultStreamWindow},
			App:          AppConfig{Path: "/wecom/app", APIBase: DefaultAppAPIBase},
			Media:        MediaConfig{Timeout: DefaultMediaTimeout, MaxBytes: MaxMediaBytes, MaxFiles: DefaultMediaMaxFiles},
			AllowedHosts: DefaultAllowedHosts(),
		},
		Agent: AgentConfig{
			Kind:               AgentCodex,
			Codex:              CodexConfig{Bin: "codex", Sandbox: "workspace-write", ApprovalPolicy: "on-request", ContinueInterrupted: true, IdleUnload: DefaultIdleUnload},
			Sandbox:            SandboxConfig{Read: append([]string(nil), DefaultSandboxRead...)},
			WorkspaceRoot:      defaultWorkspaceRoot(),
			TurnTimeout:        DefaultTurnTimeout,
			Approval:           ApprovalAsk,
			Busy:               BusyQueue,
			RerunOrphaned:      RerunOnce,
			ApprovalTimeout:    DefaultApprovalTimeout,
			MaxConcurrentTurns: DefaultMaxConcurrentTurns,
		},
		Access: AccessConfig{MaxQueuedPerUser: DefaultMaxQueuedPerUser},
		Cards: CardsConfig{ProgressStyle: ProgressThink, UpdateInterval: DefaultUpdateInterval,
			Files: FilesConfig{MaxCount: DefaultFilesMaxCount, MaxBytes: DefaultFilesMaxBytes, MaxTotalBytes: DefaultFilesMaxTotalBytes}},
		Playground: PlaygroundConfig{User: "playground"},
		Projects:   ProjectsConfig{IdleCleanup: DefaultIdleCleanup},
		Audit:      AuditConfig{MaxLen: DefaultAuditMaxLen},
	}
}

// AIBotEnabled reports whether the AI bot channel is on: when any of
// wecom.aibot.token, encoding_aes_key, bot_id or secret is set, or the
// playground is enabled (it talks to the AI bot webhook).
func (c *Config) AIBotEnabled() bool {
	b := c.WeCom.AIBot
	return b.Token != "" || b.EncodingAESKey != "" || b.BotID != "" || b.Secret != "" || c.Playground.Enabled
}

// AIBotWebhook reports whether the AI bot webhook endpoint is served: the AI bot
// is enabled in webhook mode (the playground then plays the webhook; in
// longconn mode it plays the long connection).
func (c *Config) AIBotWebhook() bool {
	return c.AIBotEnabled() && c.WeCom.AIBot.Mode == AIBotWebhook
}

// EphemeralAIBotCredentials reports whether serve makes up the AI bot's token
// and EncodingAESKey for this run: the playground plays the webhook and
// neither is set. Only the playground, which is handed them, can then sign a
// callback.
func (c *Config) EphemeralAIBotCredentials() bool {
	return c.AIBotWebhook() && c.Playground.Enabled && c.WeCom.AIBot.Token == "" && c.WeCom.AIBot.EncodingAESKey == ""
}

// AppEnabled reports whether the self-built app channel is on: when any
// wecom.app key other than path is set (and then Validate requires all).
func (c *Config) AppEnabled() bool {
	a := c.WeCom.App
	return a.CorpID != "" || a.AgentID != "" || a.Secret != "" || a.Token != "" || a.EncodingAESKey != ""
}
