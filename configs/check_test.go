package configs

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// A key one edit from a known key is an error (its value would be silently
// ignored); further ones stay warnings.
func TestMisspeltKeys(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		problems   []Problem
		warnings   []Warning
	}{
		{"redis.adr", "redis:\n  adr: 10.0.0.5:6379\n", []Problem{
			{"redis.adr", "unknown key; did you mean redis.addr? (as spelt it is ignored, leaving redis.addr at its default)"},
		}, nil},
		{"access.allow_user", "access:\n  allow_user: [alice]\n", []Problem{
			{"access.allow_user", "unknown key; did you mean access.allow_users? (as spelt it is ignored, leaving access.allow_users at its default)"},
		}, nil},
		{"swapped letters", "server:\n  adrd: :1\n", []Problem{
			{"server.adrd", "unknown key; did you mean server.addr? (as spelt it is ignored, leaving server.addr at its default)"},
		}, nil},
		{"misspelt section", "acess:\n  allow_users: [alice]\n", []Problem{
			{"acess", "unknown key; did you mean access? (as spelt it is ignored, leaving access at its default)"},
		}, nil},
		{"two edits is a warning", "wecom:\n  aibot:\n    tkn: x\n", nil, []Warning{
			{"wecom.aibot.tkn", "unknown key, ignored; did you mean wecom.aibot.token?"},
		}},
		{"far from everything is a warning", "extra: 1\n", nil, []Warning{
			{"extra", "unknown key, ignored; see configs/wecodex.example.yaml for every key"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, warns, err := Load(writeConfig(t, tc.yaml))
			var got Problems
			if err != nil && !errors.As(err, &got) {
				t.Fatalf("Load: %v", err)
			}
			if cfg == nil {
				t.Fatal("Load returned no config with its problems")
			}
			if !reflect.DeepEqual([]Problem(got), tc.problems) || !reflect.DeepEqual(warns, tc.warnings) {
				t.Fatalf("problems %q, warnings %q\nwant %q, %q", got, warns, tc.problems, tc.warnings)
			}
		})
	}
}

func TestUnknownEnvVars(t *testing.T) {
	for _, tc := range []struct {
		env  string
		want []Problem
	}{
		{"WECODEX_REDIS_ADR", []Problem{{"WECODEX_REDIS_ADR", "matches no config key, so it is ignored; did you mean WECODEX_REDIS_ADDR (redis.addr)?"}}},
		{"WECODEX_REDDIS_ADDR", []Problem{{"WECODEX_REDDIS_ADDR", "matches no config key, so it is ignored; did you mean WECODEX_REDIS_ADDR (redis.addr)?"}}},
		{"WECODEX_ACCESS_ALLOW_USER", []Problem{{"WECODEX_ACCESS_ALLOW_USER", "matches no config key, so it is ignored; did you mean WECODEX_ACCESS_ALLOW_USERS (access.allow_users)?"}}},
		{"WECODEX_AGENT_SOMETHING_ELSE", []Problem{{"WECODEX_AGENT_SOMETHING_ELSE", "matches no config key, so it is ignored; " +
			"the variable of a key is WECODEX_ + the key upper-cased, dots as underscores (redis.addr: WECODEX_REDIS_ADDR)"}}},
		// Not under any section: the test suite's and tools' own variables.
		{"WECODEX_TEST_CODEX_BIN", nil},
		{"WECODEX_SCRIPTED_MODEL_API_KEY", nil},
		{"WECODEX_REDIS_ADDR", nil},
	} {
		t.Run(tc.env, func(t *testing.T) {
			t.Setenv(tc.env, "127.0.0.1:1")
			_, _, err := Load("")
			var got Problems
			if err != nil && !errors.As(err, &got) {
				t.Fatalf("Load: %v", err)
			}
			if !reflect.DeepEqual([]Problem(got), tc.want) {
				t.Fatalf("problems %q\nwant %q", got, tc.want)
			}
		})
	}
}

// One bad value hides no other: values Load cannot decode, a misspelt key, a
// stray variable and Validate's own findings all come back together, each key
// once.
func TestCheckReportsEveryProblemAtOnce(t *testing.T) {
	p := writeConfig(t, `
redis:
  db: lots
  adr: x:1
agent:
  turn_timeout: 30
playground:
  enabled: maybe
cards:
  progress_style: loud
`)
	t.Setenv("WECODEX_CARDS_UPDATE_INTERVAL", "soon")
	t.Setenv("WECODEX_LOG_LEVL", "debug")
	cfg, warns, err := Check(p)
	var got Problems
	if !errors.As(err, &got) {
		t.Fatalf("Check = %v, want Problems", err)
	}
	want := []Problem{
		{"redis.db", `must be a whole number, not "lots"`},
		{"agent.turn_timeout", "must be a duration with a unit, like 500ms, 30s or 30m, not 30"},
		{"cards.update_interval", "must be a duration with a unit, like 500ms, 30s or 30m, not soon"},
		{"playground.enabled", `must be true or false, not "maybe"`},
		{"redis.adr", "unknown key; did you mean redis.addr? (as spelt it is ignored, leaving redis.addr at its default)"},
		{"WECODEX_LOG_LEVL", "matches no config key, so it is ignored; did you mean WECODEX_LOG_LEVEL (log.level)?"},
		{"cards.progress_style", `must be one of think, quote, not "loud"`},
	}
	if !reflect.DeepEqual([]Problem(got), want) || len(warns) != 0 {
		t.Fatalf("problems:\n got %q\nwant %q\nwarnings %q", got, want, warns)
	}
	// Keys in error keep their defaults, so Validate did not report them again.
	if d := Default(); cfg.Agent.TurnTimeout != d.Agent.TurnTimeout || cfg.Redis.DB != 0 || cfg.Cards.UpdateInterval != d.Cards.UpdateInterval {
		t.Fatalf("keys in error do not hold their defaults: %+v", cfg)
	}
}

func TestCheckFileErrors(t *testing.T) {
	if cfg, _, err := Check(writeConfig(t, "a: [\n")); cfg != nil || err == nil {
		t.Fatalf("unparsable file: cfg %v, err %v", cfg, err)
	}
	if cfg, _, err := Check(writeConfig(t, "playground:\n  enabled: true\nserver:\n  addr: 127.0.0.1:8080\n")); err != nil || cfg == nil {
		t.Fatalf("valid file: cfg %v, err %v", cfg, err)
	}
}

func TestLoopback(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:8080": true, "localhost:1": true, "LOCALHOST:1": true, "[::1]:8080": true, "127.1.2.3:80": true,
		":8080": false, "0.0.0.0:8080": false, "[::]:8080": false, "192.0.2.1:8080": false,
		"example.com:80": false, "localhost.example.com:80": false, "8080": false,
	} {
		if got := Loopback(addr); got != want {
			t.Errorf("Loopback(%q) = %v, want %v", addr, got, want)
		}
	}
}

// The smaller holes of the security model, each refused by Validate with
// the key named: "*" as an admin, plain ws:// and http:// to WeCom off
// loopback, and pprof on an address other machines reach.
func TestValidateRefusesTheSmallerHoles(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Config)
		key  string // "" when the config is valid
	}{
		{"admin *", func(c *Config) { c.Access.Admins = []string{"alice", "*"} }, "access.admins[1]"},
		{"admin named", func(c *Config) { c.Access.Admins = []string{"alice"} }, ""},
		{"ws_url ws:// off loopback", func(c *Config) {
			c.WeCom.AIBot.Mode, c.WeCom.AIBot.BotID, c.WeCom.AIBot.Secret = AIBotLongConn, "b", "s"
			c.WeCom.AIBot.WSURL = "ws://openws.work.weixin.qq.com"
		}, "wecom.aibot.ws_url"},
		{"ws_url ws:// on loopback", func(c *Config) {
			c.WeCom.AIBot.Mode, c.WeCom.AIBot.BotID, c.WeCom.AIBot.Secret = AIBotLongConn, "b", "s"
			c.WeCom.AIBot.WSURL = "ws://127.0.0.1:9000"
		}, ""},
		{"api_base http:// off loopback", func(c *Config) {
			c.WeCom.App = AppConfig{CorpID: "ww1", AgentID: "1000002", Secret: "s", Token: "t", EncodingAESKey: strings.Repeat("a", 43), Path: "/wecom/app", APIBase: "http://qyapi.weixin.qq.com"}
		}, "wecom.app.api_base"},
		{"api_base http:// on loopback", func(c *Config) {
			c.WeCom.App = AppConfig{CorpID: "ww1", AgentID: "1000002", Secret: "s", Token: "t", EncodingAESKey: strings.Repeat("a", 43), Path: "/wecom/app", APIBase: "http://localhost:8081"}
		}, ""},
		{"pprof off loopback", func(c *Config) { c.Metrics = MetricsConfig{Addr: ":9090", Pprof: true} }, "metrics.pprof"},
		{"pprof on 0.0.0.0", func(c *Config) { c.Metrics = MetricsConfig{Addr: "0.0.0.0:9090", Pprof: true} }, "metrics.pprof"},
		{"pprof on loopback", func(c *Config) { c.Metrics = MetricsConfig{Addr: "127.0.0.1:9090", Pprof: true} }, ""},
		{"metrics off loopback without pprof", func(c *Config) { c.Metrics = MetricsConfig{Addr: ":9090"} }, ""},
	} {
		c := Default()
		tc.edit(c)
		err := c.Validate()
		var keys []string
		var ps Problems
		if errors.As(err, &ps) {
			for _, p := range ps {
				keys = append(keys, p.Key)
			}
		} else if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		switch {
		case tc.key == "" && len(keys) != 0:
			t.Errorf("%s: problems %v, want none", tc.name, err)
		case tc.key != "" && (len(keys) != 1 || keys[0] != tc.key):
			t.Errorf("%s: problems at %q, want one at %s", tc.name, keys, tc.key)
		}
	}
}
