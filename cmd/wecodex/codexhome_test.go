package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wecodex/wecodex/internal/codextest"
	"github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/testenv"
	"github.com/wecodex/wecodex/internal/wecomtest"
)

// TestServeKeepsCodexOutOfTheOperatorsHome: with nothing configured, serve
// runs Codex with a CODEX_HOME and workspaces under its own state directory,
// never $HOME/.codex; Codex's environment warning (bubblewrap missing) is on
// /readyz, not on the user's card.
func TestServeKeepsCodexOutOfTheOperatorsHome(t *testing.T) {
	h := codextest.Start(t, scriptedmodel.Sequence(scriptedmodel.Reply(
		scriptedmodel.Message(scriptedmodel.PhaseFinalAnswer, "Answered from the bot's own home."),
	)))
	home := t.TempDir()
	state := filepath.Join(home, ".local", "state", "wecodex")
	// The scripted model's config where wecodex will point Codex by default.
	if err := scriptedmodel.WriteCodexHome(filepath.Join(state, "codex-home"), h.Server.URL(), scriptedmodel.HomeOptions{}); err != nil {
		t.Fatal(err)
	}
	opt := testenv.RedisOptions(t)
	cfg := writeConfig(t, fmt.Sprintf(`server:
  addr: 127.0.0.1:0
log:
  format: json
redis:
  addr: %q
  password: %q
  db: %d
  prefix: %q
wecom:
  allowed_hosts: [127.0.0.1] # the fakes: media and response_url on loopback
  aibot:
    token: %s
    encoding_aes_key: %s
agent:
  codex:
    bin: %q
access:
  allow_users: [alice]
cards:
  update_interval: 50ms
`, opt.Addr, opt.Password, opt.DB, testenv.Prefix(t, "home"), e2eToken, e2eAESKey, h.Bin))
	urls, err := wecomtest.NewResponseURLServer(nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = urls.Close() })
	b := serveWithEnv(t, cfg, append(envWithout(h.Env, "CODEX_HOME", "XDG_STATE_HOME", "HOME"), "HOME="+home), urls)
	ctx := within(t, 2*time.Minute)
	s, err := b.sim.Send(ctx, wecomtest.Message{From: "alice", Text: "hello"})
	if err != nil {
		t.Fatal(err)
	}
	last, seen := follow(t, ctx, b.sim, s.ID)
	if last.Content != "Answered from the bot's own home." {
		t.Fatalf("final frame %q, want only the answer; frames seen %q", last.Content, seen)
	}
	if _, err := os.Stat(filepath.Join(home, ".codex")); !os.IsNotExist(err) {
		t.Fatalf("$HOME/.codex exists (or cannot be checked: %v): serve wrote to the operator's Codex home", err)
	}
	if _, err := os.Stat(filepath.Join(state, "workspaces")); err != nil {
		t.Fatalf("default workspace root not under the state directory: %v", err)
	}
	var ready readyzBody
	resp, err := http.Get(b.base + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(&ready); err != nil {
		t.Fatal(err)
	}
	var want []string
	if _, err := exec.LookPath("bwrap"); err != nil {
		want = []string{"Codex could not find bubblewrap on PATH. Install bubblewrap with your OS package manager. See the sandbox prerequisites: https://developers.openai.com/codex/concepts/sandboxing#prerequisites. Codex will use the bundled bubblewrap in the meantime."}
	}
	if !ready.Ready || strings.Join(ready.AgentWarnings, "\n") != strings.Join(want, "\n") {
		t.Fatalf("/readyz = %+v, want ready with agent_warnings %q", ready, want)
	}
}

// TestCodexLoginUsesTheBotsHome: codex-login runs agent.codex.bin login with
// the bot's CODEX_HOME, passing its arguments and stdin through.
func TestCodexLoginUsesTheBotsHome(t *testing.T) {
	dir := t.TempDir()
	record := filepath.Join(dir, "record")
	bin := filepath.Join(dir, "fake-codex")
	script := "#!/bin/sh\nprintf 'CODEX_HOME=%s\\nargs=%s\\nstdin=%s\\n' \"$CODEX_HOME\" \"$*\" \"$(cat)\" > " + record + "\nexit 3\n"
	if err := os.WriteFile(bin, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	tests := []struct {
		name, yaml, envHome, want string
	}{
		{"state directory", "", "", filepath.Join(home, ".local", "state", "wecodex", "codex-home")},
		{"CODEX_HOME from the environment", "", filepath.Join(dir, "env-home"), filepath.Join(dir, "env-home")},
		{"agent.codex.home", "\n    home: " + filepath.Join(dir, "cfg-home"), filepath.Join(dir, "env-home"), filepath.Join(dir, "cfg-home")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := writeConfig(t, "agent:\n  codex:\n    bin: "+bin+tt.yaml+"\n")
			cmd := command(t, "codex-login", "--config", cfg, "--with-api-key")
			cmd.Env = append(envWithout(cmd.Env, "CODEX_HOME", "XDG_STATE_HOME", "HOME"), "HOME="+home)
			if tt.envHome != "" {
				cmd.Env = append(cmd.Env, "CODEX_HOME="+tt.envHome)
			}
			cmd.Stdin = strings.NewReader("sk-test-key")
			err := cmd.Run()
			if code := cmd.ProcessState.ExitCode(); code != 3 {
				t.Fatalf("exit %d (%v), want codex login's own exit code 3", code, err)
			}
			got, err := os.ReadFile(record)
			if err != nil {
				t.Fatal(err)
			}
			want := "CODEX_HOME=" + tt.want + "\nargs=login --with-api-key\nstdin=sk-test-key\n"
			if string(got) != want {
				t.Fatalf("codex saw:\n%s\nwant:\n%s", got, want)
			}
			if fi, err := os.Stat(tt.want); err != nil || !fi.IsDir() {
				t.Fatalf("CODEX_HOME %s was not created: %v", tt.want, err)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(home, ".codex")); !os.IsNotExist(err) {
		t.Fatalf("$HOME/.codex exists: %v", err)
	}
}

// envWithout returns env without the named variables.
func envWithout(env []string, names ...string) []string {
	var out []string
	for _, kv := range env {
		keep := !strings.HasPrefix(kv, "WECODEX_")
		for _, n := range names {
			keep = keep && !strings.HasPrefix(kv, n+"=")
		}
		if keep {
			out = append(out, kv)
		}
	}
	return out
}

// TestCodexLoginEnvironmentIsAllowListed: `codex login` runs with the
// allow-listed environment and agent.codex.env, not wecodex's secrets.
func TestCodexLoginEnvironmentIsAllowListed(t *testing.T) {
	dir := t.TempDir()
	record := filepath.Join(dir, "env")
	bin := filepath.Join(dir, "fake-codex")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\nenv > "+record+"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := writeConfig(t, "agent:\n  codex:\n    bin: "+bin+"\n    home: "+filepath.Join(dir, "home")+"\n    env:\n      LISTED_BY_ADMIN: yes\n")
	cmd := command(t, "codex-login", "--config", cfg)
	cmd.Env = append(cmd.Env, "WECODEX_WECOM_AIBOT_TOKEN=secret-aibot-token", "SOME_API_KEY=secret-some-api-key", "FOO_TOKEN=secret-foo-token", "TZ=Asia/Shanghai")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("codex-login: %v\n%s", err, out)
	}
	got, err := os.ReadFile(record)
	if err != nil {
		t.Fatal(err)
	}
	for _, leak := range []string{"WECODEX_", "secret-", "SOME_API_KEY", "FOO_TOKEN"} {
		if strings.Contains(string(got), leak) {
			t.Errorf("codex login saw %q:\n%s", leak, got)
		}
	}
	for _, want := range []string{"\nTZ=Asia/Shanghai\n", "\nLISTED_BY_ADMIN=yes\n", "\nCODEX_HOME=" + filepath.Join(dir, "home") + "\n", "\nPATH="} {
		if !strings.Contains("\n"+string(got), want) {
			t.Errorf("codex login's environment lacks %q:\n%s", strings.TrimSpace(want), got)
		}
	}
}
