package configs

import (
	"errors"
	"reflect"
	"testing"
)

func TestAgentEnvNames(t *testing.T) {
	for _, tc := range []struct {
		name  string
		codex map[string]string
		acp   map[string]string
		want  []Problem
	}{
		{"plain names", map[string]string{"GOPROXY": "https://goproxy.cn", "OPENAI_API_KEY": "sk", "lower_1": "x"}, map[string]string{"_X": "1"}, nil},
		{"wecodex's own variables", map[string]string{"WECODEX_REDIS_PASSWORD": "pw"}, map[string]string{"WECODEX_WECOM_AIBOT_TOKEN": "t"}, []Problem{
			{"agent.codex.env.WECODEX_REDIS_PASSWORD", "is one of wecodex's own variables (its configuration and secrets), which never reach the agent; remove it from agent.codex.env"},
			{"agent.acp.env.WECODEX_WECOM_AIBOT_TOKEN", "is one of wecodex's own variables (its configuration and secrets), which never reach the agent; remove it from agent.acp.env"},
		}},
		{"CODEX_HOME is agent.codex.home", map[string]string{"CODEX_HOME": "/x"}, map[string]string{"CODEX_HOME": "/x"}, []Problem{
			{"agent.codex.env.CODEX_HOME", "set agent.codex.home instead: it is the CODEX_HOME wecodex runs Codex with"},
		}},
		{"not names", map[string]string{"1X": "", "A-B": "", "a.b": ""}, nil, []Problem{
			{"agent.codex.env", `"1X" is not an environment variable name: use letters, digits and _, not starting with a digit`},
			{"agent.codex.env", `"A-B" is not an environment variable name: use letters, digits and _, not starting with a digit`},
			{"agent.codex.env", `"a.b" is not an environment variable name: use letters, digits and _, not starting with a digit`},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Default()
			c.Agent.Codex.Env, c.Agent.ACP.Env = tc.codex, tc.acp
			var got Problems
			if err := c.Validate(); err != nil && !errors.As(err, &got) {
				t.Fatalf("Validate returned %T, want Problems", err)
			}
			if !reflect.DeepEqual([]Problem(got), tc.want) {
				t.Fatalf("problems:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// TestAgentEnvFromFileAndEnvironment: agent.codex.env keeps its names' case
// from the file, and an environment override replaces the whole map, where a
// WECODEX_ name is refused all the same.
func TestAgentEnvFromFileAndEnvironment(t *testing.T) {
	p := writeConfig(t, "agent:\n  codex:\n    env:\n      GoProxy: direct\n      WECODEX_REDIS_PASSWORD: pw\n")
	cfg, _, err := Check(p)
	want := Problems{{"agent.codex.env.WECODEX_REDIS_PASSWORD", "is one of wecodex's own variables (its configuration and secrets), which never reach the agent; remove it from agent.codex.env"}}
	if !reflect.DeepEqual(err, want) {
		t.Fatalf("Check = %v, want %v", err, want)
	}
	if got := cfg.Agent.Codex.Env; !reflect.DeepEqual(got, map[string]string{"GoProxy": "direct", "WECODEX_REDIS_PASSWORD": "pw"}) {
		t.Errorf("agent.codex.env = %q", got)
	}
	t.Setenv("WECODEX_AGENT_CODEX_ENV", "GOFLAGS=-mod=mod,GOPROXY=off")
	cfg, _, err = Check(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Agent.Codex.Env; !reflect.DeepEqual(got, map[string]string{"GOFLAGS": "-mod=mod", "GOPROXY": "off"}) {
		t.Errorf("agent.codex.env from WECODEX_AGENT_CODEX_ENV = %q", got)
	}
}
