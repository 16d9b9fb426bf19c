package configs

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestEverySecretHasAFileTwin: each key that holds a secret has a _file
// twin that readSecretFiles knows, so a secret added later cannot be left
// with the environment as the only way in besides the file.
func TestEverySecretHasAFileTwin(t *testing.T) {
	names := map[string]bool{}
	for _, k := range Keys() {
		names[k.Name] = true
	}
	var secrets []string
	for _, k := range Keys() {
		last := k.Name[strings.LastIndex(k.Name, ".")+1:]
		if last == "password" || last == "token" || last == "secret" || last == "encoding_aes_key" {
			secrets = append(secrets, k.Name)
			if !names[k.Name+"_file"] || secretOfFileKey(k.Name+"_file") != k.Name {
				t.Errorf("%s has no _file twin that readSecretFiles reads", k.Name)
			}
		}
	}
	if len(secrets) != len(Default().secretFiles()) {
		t.Errorf("secret keys %q, but secretFiles lists %d", secrets, len(Default().secretFiles()))
	}
}

func TestSecretFiles(t *testing.T) {
	dir := t.TempDir()
	file := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	token := file("token", "file-token\n")
	key := file("aes", validKey+"\r\n")
	twoLines := file("two", "pw\n\n")
	bare := file("bare", "pw")
	empty := file("empty", "")
	newline := file("newline", "\n")
	missing := filepath.Join(dir, "missing")
	for _, tc := range []struct {
		name string
		yaml string
		env  map[string]string
		got  func(c *Config) []string // the secrets as they arrived
		want []string
		ps   []Problem
	}{
		{
			name: "one trailing newline is trimmed",
			yaml: "wecom:\n  aibot:\n    token_file: " + token + "\n    encoding_aes_key_file: " + key + "\nredis:\n  password_file: " + twoLines + "\n",
			got: func(c *Config) []string {
				return []string{c.WeCom.AIBot.Token, c.WeCom.AIBot.EncodingAESKey, c.Redis.Password}
			},
			want: []string{"file-token", validKey, "pw\n"},
		},
		{
			name: "a file without a newline is taken as it is",
			yaml: "redis:\n  password_file: " + bare + "\n",
			got:  func(c *Config) []string { return []string{c.Redis.Password} },
			want: []string{"pw"},
		},
		{
			name: "the environment sets a _file key",
			yaml: "wecom:\n  aibot:\n    mode: longconn\n    bot_id: b\n  app:\n    corp_id: ww1\n    agent_id: \"1\"\n    token: t\n    encoding_aes_key: " + validKey + "\n",
			env:  map[string]string{"WECODEX_WECOM_APP_SECRET_FILE": bare, "WECODEX_WECOM_AIBOT_SECRET_FILE": token},
			got:  func(c *Config) []string { return []string{c.WeCom.App.Secret, c.WeCom.AIBot.Secret} },
			want: []string{"pw", "file-token"},
		},
		{
			name: "a secret and its twin both",
			yaml: "wecom:\n  aibot:\n    token: t\n    token_file: " + token + "\n    encoding_aes_key: " + validKey + "\n",
			ps:   []Problem{{"wecom.aibot.token_file", "is set and so is wecom.aibot.token: set one of them (wecom.aibot.token_file names a file holding wecom.aibot.token)"}},
		},
		{
			name: "the environment sets the secret, the file its twin",
			yaml: "redis:\n  password_file: " + bare + "\n",
			env:  map[string]string{"WECODEX_REDIS_PASSWORD": "pw"},
			ps:   []Problem{{"redis.password_file", "is set and so is redis.password: set one of them (redis.password_file names a file holding redis.password)"}},
		},
		{
			name: "missing file",
			yaml: "wecom:\n  aibot:\n    token_file: " + missing + "\n    encoding_aes_key: " + validKey + "\n",
			ps:   []Problem{{"wecom.aibot.token_file", "cannot read " + missing + ": no such file or directory"}},
		},
		{
			name: "empty files",
			yaml: "wecom:\n  app:\n    corp_id: ww1\n    agent_id: \"1\"\n    secret_file: " + empty + "\n    token_file: " + newline + "\n    encoding_aes_key: " + validKey + "\n",
			ps: []Problem{
				{"wecom.app.secret_file", empty + " is empty; it must hold wecom.app.secret"},
				{"wecom.app.token_file", newline + " is empty; it must hold wecom.app.token"},
			},
		},
		{
			name: "a directory",
			yaml: "wecom:\n  aibot:\n    mode: longconn\n    bot_id: b\n    secret_file: " + dir + "\n",
			ps:   []Problem{{"wecom.aibot.secret_file", "cannot read " + dir + ": is a directory"}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			cfg, _, err := Check(writeConfig(t, tc.yaml))
			var ps Problems
			if err != nil && !errors.As(err, &ps) {
				t.Fatalf("Check: %v", err)
			}
			if !reflect.DeepEqual([]Problem(ps), tc.ps) {
				t.Fatalf("problems:\n got %q\nwant %q", ps, tc.ps)
			}
			if tc.got != nil && !reflect.DeepEqual(tc.got(cfg), tc.want) {
				t.Errorf("secrets = %q, want %q", tc.got(cfg), tc.want)
			}
		})
	}
}

func TestAgentEnvFiles(t *testing.T) {
	dir := t.TempDir()
	key := filepath.Join(dir, "key")
	if err := os.WriteFile(key, []byte("sk-from-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing")
	for _, tc := range []struct {
		name      string
		yaml      string
		env       map[string]string
		codex, ac map[string]string
		ps        []Problem
	}{
		{
			name:  "values from files join env",
			yaml:  "agent:\n  codex:\n    env:\n      GOPROXY: off\n    env_file:\n      Provider_Key: " + key + "\n  acp:\n    env_file:\n      OPENAI_API_KEY: " + key + "\n",
			codex: map[string]string{"GOPROXY": "off", "Provider_Key": "sk-from-file"},
			ac:    map[string]string{"OPENAI_API_KEY": "sk-from-file"},
		},
		{
			name:  "from the environment",
			env:   map[string]string{"WECODEX_AGENT_CODEX_ENV_FILE": "PROVIDER_KEY=" + key},
			codex: map[string]string{"PROVIDER_KEY": "sk-from-file"},
		},
		{
			name:  "a name in both",
			yaml:  "agent:\n  codex:\n    env:\n      K: v\n    env_file:\n      K: " + key + "\n",
			codex: map[string]string{"K": "v"},
			ps:    []Problem{{"agent.codex.env_file.K", "is set and so is agent.codex.env.K: set one of them"}},
		},
		{
			name: "missing, empty and wecodex's own",
			yaml: "agent:\n  codex:\n    env_file:\n      A: " + missing + "\n      B: " + empty + "\n      WECODEX_REDIS_PASSWORD: " + missing + "\n",
			ps: []Problem{
				{"agent.codex.env_file.A", "cannot read " + missing + ": no such file or directory"},
				{"agent.codex.env_file.B", empty + " is empty; it must hold B"},
				{"agent.codex.env_file.WECODEX_REDIS_PASSWORD", "is one of wecodex's own variables (its configuration and secrets), which never reach the agent; remove it from agent.codex.env_file"},
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			cfg, _, err := Check(writeConfig(t, tc.yaml))
			var ps Problems
			if err != nil && !errors.As(err, &ps) {
				t.Fatalf("Check: %v", err)
			}
			if !reflect.DeepEqual([]Problem(ps), tc.ps) {
				t.Fatalf("problems:\n got %q\nwant %q", ps, tc.ps)
			}
			if !reflect.DeepEqual(cfg.Agent.Codex.Env, tc.codex) || !reflect.DeepEqual(cfg.Agent.ACP.Env, tc.ac) {
				t.Errorf("agent.codex.env %q, agent.acp.env %q; want %q, %q", cfg.Agent.Codex.Env, cfg.Agent.ACP.Env, tc.codex, tc.ac)
			}
		})
	}
}
