package configs

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// validKey is a well-formed EncodingAESKey made for these tests only.
const validKey = "DDkUDeGAyis6gofMlDlvJjh514XJ0TXoZKXQrQL8lnA"

func writeConfig(t *testing.T, yaml string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "wecodex.yaml")
	if err := os.WriteFile(p, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestExampleDocumentsEveryKeyWithTheDefaults(t *testing.T) {
	cfg, warns, err := Load("wecodex.example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 0 {
		t.Fatalf("warnings: %v", warns)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatalf("example does not validate:\n%v", err)
	}
	if !reflect.DeepEqual(cfg, Default()) {
		t.Fatalf("example differs from Default():\n got %+v\nwant %+v", cfg, Default())
	}
	text, err := os.ReadFile("wecodex.example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	raw := map[string]any{}
	if err := yamlUnmarshal(text, &raw); err != nil {
		t.Fatal(err)
	}
	for _, k := range Keys() {
		if _, ok := lookup(raw, k.Name); !ok {
			t.Errorf("%s is not documented in wecodex.example.yaml", k.Name)
		}
	}
}

func TestLocalConfig(t *testing.T) {
	cfg, warns, err := Load("wecodex.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 0 {
		t.Fatalf("warnings: %v", warns)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatalf("wecodex.yaml does not validate:\n%v", err)
	}
	// Safe by default: loopback only, and no credential committed (serve
	// makes up the playground's for each run).
	if cfg.Server.Addr != "127.0.0.1:8080" || !Loopback(cfg.Server.Addr) {
		t.Errorf("server.addr = %q, want 127.0.0.1:8080", cfg.Server.Addr)
	}
	if b := cfg.WeCom.AIBot; b.Token != "" || b.EncodingAESKey != "" || b.Secret != "" || !cfg.EphemeralAIBotCredentials() {
		t.Errorf("wecodex.yaml commits AI bot credentials: %+v", b)
	}
	if cfg.Redis.Addrs() != nil || !cfg.Playground.Enabled || !cfg.AIBotWebhook() ||
		cfg.Agent.Kind != "codex" || cfg.Agent.Codex.Bin != "codex" ||
		!reflect.DeepEqual(cfg.Access.AllowUsers, []string{"playground"}) {
		t.Fatalf("unexpected local config: %+v", cfg)
	}
}

func TestNoFileGivesDefaults(t *testing.T) {
	cfg, warns, err := Load("")
	if err != nil || len(warns) != 0 {
		t.Fatal(err, warns)
	}
	if !reflect.DeepEqual(cfg, Default()) {
		t.Fatalf("got %+v", cfg)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatalf("defaults do not validate: %v", err)
	}
}

func TestEnvOverridesEveryKindOfKey(t *testing.T) {
	p := writeConfig(t, "redis:\n  addr: file:6379\nagent:\n  acp:\n    env:\n      FROM_FILE: x\n")
	t.Setenv("WECODEX_REDIS_ADDR", "a:1, b:2")
	t.Setenv("WECODEX_REDIS_DB", "0")
	t.Setenv("WECODEX_WECOM_AIBOT_TOKEN", "tok") // absent from the file
	t.Setenv("WECODEX_ACCESS_ALLOW_USERS", "alice, bob")
	t.Setenv("WECODEX_AGENT_TURN_TIMEOUT", "5m")
	t.Setenv("WECODEX_SERVER_DRAIN_TIMEOUT", "90s")
	t.Setenv("WECODEX_AGENT_ACP_ENV", "OPENAI_API_KEY=k,Mixed=v=w")
	t.Setenv("WECODEX_AGENT_CODEX_CONFIG", "model=gpt-5,model_providers.x.base_url=http://h/v1")
	t.Setenv("WECODEX_PLAYGROUND_ENABLED", "true")
	cfg, _, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Redis.Addrs(); !reflect.DeepEqual(got, []string{"a:1", "b:2"}) {
		t.Errorf("redis addrs = %q", got)
	}
	if cfg.WeCom.AIBot.Token != "tok" {
		t.Errorf("token = %q", cfg.WeCom.AIBot.Token)
	}
	if !reflect.DeepEqual(cfg.Access.AllowUsers, []string{"alice", "bob"}) {
		t.Errorf("allow_users = %q", cfg.Access.AllowUsers)
	}
	if cfg.Agent.TurnTimeout != 5*time.Minute {
		t.Errorf("turn_timeout = %v", cfg.Agent.TurnTimeout)
	}
	if cfg.Server.DrainTimeout != 90*time.Second {
		t.Errorf("drain_timeout = %v", cfg.Server.DrainTimeout)
	}
	if want := map[string]string{"OPENAI_API_KEY": "k", "Mixed": "v=w"}; !reflect.DeepEqual(cfg.Agent.ACP.Env, want) {
		t.Errorf("acp env = %q", cfg.Agent.ACP.Env)
	}
	if want := map[string]string{"model": "gpt-5", "model_providers.x.base_url": "http://h/v1"}; !reflect.DeepEqual(cfg.Agent.Codex.Config, want) {
		t.Errorf("codex config = %q", cfg.Agent.Codex.Config)
	}
	if !cfg.Playground.Enabled {
		t.Error("playground.enabled not overridden")
	}
}

func TestEveryKeyHasAnEnvVar(t *testing.T) {
	// One distinctive string per string key; each must arrive in the struct.
	for _, k := range Keys() {
		v := reflect.ValueOf(Default()).Elem().FieldByIndex(k.index)
		if v.Kind() != reflect.String {
			continue
		}
		t.Run(k.Name, func(t *testing.T) {
			want := "from-env"
			if secretOfFileKey(k.Name) != "" {
				// A secret's _file twin must name a file that exists.
				want = filepath.Join(t.TempDir(), "from-env")
				if err := os.WriteFile(want, []byte("s"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			t.Setenv(EnvVar(k.Name), want)
			cfg, _, err := Load("")
			if err != nil {
				t.Fatal(err)
			}
			if got := reflect.ValueOf(cfg).Elem().FieldByIndex(k.index).String(); got != want {
				t.Fatalf("%s = %q", EnvVar(k.Name), got)
			}
		})
	}
}

func TestMapsKeepCaseAndNestedCodexConfigIsFlattened(t *testing.T) {
	p := writeConfig(t, `
agent:
  codex:
    config:
      model: gpt-5
      sandbox_workspace_write.network_access: true
      model_providers:
        Local:
          base_url: http://127.0.0.1:9/v1
          wire_api: responses
      notify: [a, b]
  acp:
    command: [npx, -y, agent]
    env:
      OPENAI_API_KEY: sk
      lower: x
`)
	t.Setenv("WECODEX_AGENT_ACP_ENV", "") // empty: the file's value stands
	cfg, warns, err := Load(p)
	if err != nil || len(warns) != 0 {
		t.Fatal(err, warns)
	}
	want := map[string]string{
		"model":                                  "gpt-5",
		"sandbox_workspace_write.network_access": "true",
		"model_providers.Local.base_url":         "http://127.0.0.1:9/v1",
		"model_providers.Local.wire_api":         "responses",
		"notify":                                 `["a","b"]`,
	}
	if !reflect.DeepEqual(cfg.Agent.Codex.Config, want) {
		t.Errorf("codex config = %q", cfg.Agent.Codex.Config)
	}
	if want := map[string]string{"OPENAI_API_KEY": "sk", "lower": "x"}; !reflect.DeepEqual(cfg.Agent.ACP.Env, want) {
		t.Errorf("acp env = %q", cfg.Agent.ACP.Env)
	}
	if !reflect.DeepEqual(cfg.Agent.ACP.Command, []string{"npx", "-y", "agent"}) {
		t.Errorf("acp command = %q", cfg.Agent.ACP.Command)
	}
}

func TestUnknownKeysAreWarnings(t *testing.T) {
	p := writeConfig(t, `
server:
  addr: ":9"
wecom:
  aibot:
    tkn: x
    path: /x
extra:
  nested: 1
Cards:
  Progress_Style: quote
`)
	cfg, warns, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	want := []Warning{
		{Key: "extra", Message: "unknown key, ignored; see configs/wecodex.example.yaml for every key"},
		{Key: "wecom.aibot.tkn", Message: "unknown key, ignored; did you mean wecom.aibot.token?"},
	}
	if !reflect.DeepEqual(warns, want) {
		t.Fatalf("warnings:\n got %q\nwant %q", warns, want)
	}
	if cfg.Cards.ProgressStyle != "quote" || cfg.WeCom.AIBot.Path != "/x" {
		t.Fatalf("known keys not read (keys are case-insensitive): %+v", cfg)
	}
}

func TestLoadErrorsNameTheKey(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"agent:\n  turn_timeout: 30\n", "agent.turn_timeout"},
		{"redis:\n  db: lots\n", "redis.db"},
		{"cards:\n  update_interval: soon\n", "cards.update_interval"},
	} {
		_, _, err := Load(writeConfig(t, tc.yaml))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v does not name %s", tc.yaml, err, tc.want)
		}
	}
	if _, _, err := Load(filepath.Join(t.TempDir(), "missing.yaml")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(c *Config)
		want   []Problem
	}{
		{"defaults", func(c *Config) {}, nil},
		{"9-char aibot key", func(c *Config) {
			c.WeCom.AIBot.Token, c.WeCom.AIBot.EncodingAESKey = "t", "123456789"
		}, []Problem{{"wecom.aibot.encoding_aes_key", "must be 43 characters (the EncodingAESKey from the WeCom admin console), not 9"}}},
		{"non-base64 aibot key", func(c *Config) {
			c.WeCom.AIBot.Token, c.WeCom.AIBot.EncodingAESKey = "t", strings.Repeat("!", 43)
		}, []Problem{{"wecom.aibot.encoding_aes_key", "must be base64 letters, digits, + and / only (the EncodingAESKey from the WeCom admin console)"}}},
		{"playground on loopback gets ephemeral credentials", func(c *Config) {
			c.Playground.Enabled, c.Server.Addr = true, "127.0.0.1:8080"
		}, nil},
		{"playground on every interface", func(c *Config) { c.Playground.Enabled = true }, []Problem{
			{"server.addr", `must be a loopback address like 127.0.0.1:8080 while playground.enabled is true, not ":8080": ` +
				"whoever reaches the playground drives the agent; listen on loopback, or set playground.enabled: false to serve WeCom on this address"},
		}},
		{"playground with a token but no key", func(c *Config) {
			c.Playground.Enabled, c.Server.Addr, c.WeCom.AIBot.Token = true, "localhost:8080", "t"
		}, []Problem{
			{"wecom.aibot.encoding_aes_key", "required (the 43-character EncodingAESKey from the WeCom admin console) for the AI bot webhook"},
		}},
		{"public playground key beyond loopback", func(c *Config) {
			c.WeCom.AIBot.Token, c.WeCom.AIBot.EncodingAESKey, c.Server.Addr = "real-token", publicAESKey, "0.0.0.0:8080"
		}, []Problem{{"wecom.aibot.encoding_aes_key", `is the well-known local playground key (wecom.aibot.token "wecodex-local-playground" is too), published with wecodex: ` +
			`anyone could sign callbacks with it, so wecodex only listens on loopback with it, not on "0.0.0.0:8080"; ` +
			"set wecom.aibot.token and wecom.aibot.encoding_aes_key to the Token and EncodingAESKey from the WeCom admin console, " +
			"or remove both to let the playground make its own, or set server.addr to 127.0.0.1:8080"}}},
		{"public playground token beyond loopback", func(c *Config) {
			c.WeCom.AIBot.Token, c.WeCom.AIBot.EncodingAESKey = publicToken, validKey
		}, []Problem{{"wecom.aibot.encoding_aes_key", `is the well-known local playground key (wecom.aibot.token "wecodex-local-playground" is too), published with wecodex: ` +
			`anyone could sign callbacks with it, so wecodex only listens on loopback with it, not on ":8080"; ` +
			"set wecom.aibot.token and wecom.aibot.encoding_aes_key to the Token and EncodingAESKey from the WeCom admin console, " +
			"or remove both to let the playground make its own, or set server.addr to 127.0.0.1:8080"}}},
		{"public playground credentials on loopback", func(c *Config) {
			c.WeCom.AIBot.Token, c.WeCom.AIBot.EncodingAESKey, c.Server.Addr = publicToken, publicAESKey, "[::1]:8080"
		}, nil},
		{"public key for the app", func(c *Config) {
			c.WeCom.App = AppConfig{CorpID: "ww1", AgentID: "1000002", Secret: "s", Token: "t", EncodingAESKey: publicAESKey, Path: "/app"}
		}, []Problem{{"wecom.app.encoding_aes_key", "is the well-known local playground key, published with wecodex: anyone could sign callbacks with it; " +
			`set wecom.app.token and wecom.app.encoding_aes_key to the values from the app's "receive messages" settings in the WeCom admin console`}}},
		{"longconn needs bot id and secret", func(c *Config) {
			c.WeCom.AIBot.Mode, c.WeCom.AIBot.BotID = AIBotLongConn, "bot"
		}, []Problem{{"wecom.aibot.secret", "required (the Secret from the WeCom admin console) in longconn mode"}}},
		{"longconn ws_url must be a WebSocket URL", func(c *Config) {
			c.WeCom.AIBot.Mode, c.WeCom.AIBot.BotID, c.WeCom.AIBot.Secret = AIBotLongConn, "bot", "s"
			c.WeCom.AIBot.WSURL = "https://openws.work.weixin.qq.com"
		}, []Problem{{"wecom.aibot.ws_url", `must be a ws:// or wss:// URL like wss://openws.work.weixin.qq.com, not "https://openws.work.weixin.qq.com"`}}},
		{"longconn alone needs no webhook key", func(c *Config) {
			c.WeCom.AIBot.Mode, c.WeCom.AIBot.BotID, c.WeCom.AIBot.Secret = AIBotLongConn, "bot", "s"
		}, nil},
		{"app is all or nothing", func(c *Config) { c.WeCom.App.CorpID = "ww1"; c.WeCom.App.AgentID = "x1" }, []Problem{
			{"wecom.app.secret", "required for the self-built app (set all of wecom.app.corp_id, agent_id, secret, token, encoding_aes_key, or none)"},
			{"wecom.app.token", "required for the self-built app (set all of wecom.app.corp_id, agent_id, secret, token, encoding_aes_key, or none)"},
			{"wecom.app.encoding_aes_key", "required for the self-built app (set all of wecom.app.corp_id, agent_id, secret, token, encoding_aes_key, or none)"},
			{"wecom.app.agent_id", `must be the app's numeric AgentId, not "x1"`},
		}},
		{"app api_base must be an http(s) base URL", func(c *Config) {
			c.WeCom.App = AppConfig{CorpID: "ww1", AgentID: "1000002", Secret: "s", Token: "t", EncodingAESKey: validKey, Path: "/app", APIBase: "qyapi.weixin.qq.com/cgi-bin"}
		}, []Problem{{"wecom.app.api_base", `must be an http:// or https:// base URL like https://qyapi.weixin.qq.com, not "qyapi.weixin.qq.com/cgi-bin"`}}},
		{"complete app", func(c *Config) {
			c.WeCom.App = AppConfig{CorpID: "ww1", AgentID: "1000002", Secret: "s", Token: "t", EncodingAESKey: validKey, Path: "/app"}
		}, nil},
		{"enums", func(c *Config) {
			c.WeCom.AIBot.Mode, c.Agent.Kind, c.Agent.Approval, c.Cards.ProgressStyle, c.Log.Level = "poll", "gpt", "maybe", "bold", "loud"
			c.Agent.Busy = "interrupt"
			c.Agent.RerunOrphaned = "twice"
		}, []Problem{
			{"log.level", `must be one of debug, info, warn, error, not "loud"`},
			{"wecom.aibot.mode", `must be one of webhook, longconn, not "poll"`},
			{"agent.kind", `must be one of codex, acp, not "gpt"`},
			{"agent.approval", `must be one of ask, allow, deny, not "maybe"`},
			{"agent.busy", `must be one of queue, steer, not "interrupt"`},
			{"agent.rerun_orphaned", `must be one of once, never, not "twice"`},
			{"cards.progress_style", `must be one of think, quote, not "bold"`},
		}},
		{"durations", func(c *Config) {
			c.Agent.TurnTimeout, c.Cards.UpdateInterval, c.WeCom.AIBot.StreamWindow = 0, -time.Second, 7*time.Minute
			c.Server.DrainTimeout = 0
			c.Agent.ApprovalTimeout = 0
		}, []Problem{
			{"server.drain_timeout", "must be a positive duration like 500ms or 30m, not 0s"},
			{"wecom.aibot.stream_window", "must be at most 6m: WeCom stops asking for stream frames 6 minutes after the message"},
			{"agent.turn_timeout", "must be a positive duration like 500ms or 30m, not 0s"},
			{"agent.approval_timeout", "must be a positive duration like 500ms or 30m, not 0s"},
			{"cards.update_interval", "must be a positive duration like 500ms or 30m, not -1s"},
		}},
		{"files limits", func(c *Config) { c.Cards.Files = FilesConfig{MaxCount: 0, MaxBytes: 100, MaxTotalBytes: 50} }, []Problem{
			{"cards.files.max_count", "must be a positive number of files like 10, not 0"},
			{"cards.files.max_total_bytes", "must be at least cards.files.max_bytes (100), not 50"},
		}},
		{"files bytes", func(c *Config) { c.Cards.Files.MaxBytes, c.Cards.Files.MaxTotalBytes = -1, 0 }, []Problem{
			{"cards.files.max_bytes", "must be a positive number of bytes like 20971520 (20 MiB), not -1"},
			{"cards.files.max_total_bytes", "must be a positive number of bytes like 52428800 (50 MiB), not 0"},
		}},
		{"acp needs a command", func(c *Config) { c.Agent.Kind = AgentACP }, []Problem{
			{"agent.acp.command", "required when agent.kind is acp: the agent's argv, e.g. [npx, -y, some-acp-agent]"},
		}},
		{"codex policies", func(c *Config) { c.Agent.Codex.ApprovalPolicy, c.Agent.Codex.Sandbox = "untrusted", "none" }, []Problem{
			{"agent.codex.sandbox", `must be one of read-only, workspace-write, danger-full-access, not "none"`},
			{"agent.codex.approval_policy", `"untrusted" is rejected by Codex app-server; use on-request or never`},
		}},
		{"redis", func(c *Config) { c.Redis.Addr, c.Redis.DB, c.Redis.Prefix, c.Server.Addr = "a:1,b", 2, "{x}", "8080" }, []Problem{
			{"server.addr", `must be host:port or :port (like :8080), not "8080"`},
			{"redis.addr", `"b" is not host:port; give one address, several comma-separated for a Cluster, or leave empty for the embedded store`},
			{"redis.db", "must be 0 with a Redis Cluster (several redis.addr); Cluster has only database 0"},
			{"redis.prefix", "must not contain { or }: they would change Redis Cluster hash tags"},
		}},
		{"sentinel needs addresses", func(c *Config) { c.Redis.MasterName = "mymaster" }, []Problem{
			{"redis.master_name", "needs redis.addr set to the Sentinel addresses"},
		}},
		{"paths", func(c *Config) { c.WeCom.AIBot.Path, c.WeCom.App.Path = "/same", "/same" }, []Problem{
			{"wecom.app.path", `must differ from wecom.aibot.path (both are "/same")`},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Default()
			tc.change(c)
			err := c.Validate()
			var got Problems
			if err != nil && !errors.As(err, &got) {
				t.Fatalf("Validate returned %T, want Problems", err)
			}
			if !reflect.DeepEqual([]Problem(got), tc.want) {
				t.Fatalf("problems:\n got %q\nwant %q", got, tc.want)
			}
			for _, p := range tc.want {
				if !strings.Contains(err.Error(), p.Key+": "+p.Message) {
					t.Errorf("error text lacks %q", p.Key)
				}
			}
		})
	}
}

func yamlUnmarshal(b []byte, v any) error { return yaml.Unmarshal(b, v) }

// TestLocalLongConnConfig: configs/wecodex-longconn.yaml validates as a
// loopback-only playground in longconn mode, which serves no webhook and
// makes up no webhook credentials.
func TestLocalLongConnConfig(t *testing.T) {
	cfg, warns, err := Load("wecodex-longconn.yaml")
	if err != nil || len(warns) != 0 {
		t.Fatal(err, warns)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatalf("wecodex-longconn.yaml does not validate:\n%v", err)
	}
	b := cfg.WeCom.AIBot
	if b.Mode != AIBotLongConn || b.BotID == "" || b.Secret == "" || !cfg.Playground.Enabled || !Loopback(cfg.Server.Addr) {
		t.Fatalf("unexpected local long-connection config: %+v", cfg)
	}
	if cfg.AIBotWebhook() || cfg.EphemeralAIBotCredentials() {
		t.Fatalf("longconn mode with the playground: AIBotWebhook %v, EphemeralAIBotCredentials %v, want both false",
			cfg.AIBotWebhook(), cfg.EphemeralAIBotCredentials())
	}
}
