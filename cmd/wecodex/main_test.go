package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/wecodex/wecodex/internal/testenv"
)

// wecodexBin is the binary under test, built once by TestMain.
var wecodexBin string

func TestMain(m *testing.M) { testenv.RunWithWecodex(m, &wecodexBin) }

// command runs the binary with no WECODEX_* variables from the caller's
// environment, so only the test's config counts.
func command(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(wecodexBin, args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "WECODEX_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Dir = t.TempDir() // the default config path does not exist there
	return cmd
}

type result struct {
	code           int
	stdout, stderr string
}

func runBin(t *testing.T, args ...string) result {
	t.Helper()
	cmd := command(t, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		t.Fatal(err)
	}
	return result{code: cmd.ProcessState.ExitCode(), stdout: out.String(), stderr: errOut.String()}
}

func writeConfig(t *testing.T, yaml string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "wecodex.yaml")
	if err := os.WriteFile(p, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func repoFile(t *testing.T, rel string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", rel))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCheckConfig(t *testing.T) {
	badKey := writeConfig(t, `
wecom:
  aibot:
    token: t
    encoding_aes_key: "123456789"
agent:
  turn_timeout: 0s
  kind: gpt
`)
	typo := writeConfig(t, "server:\n  adr: \":1\"\n")
	farTypo := writeConfig(t, "server:\n  addres: \":1\"\n")
	redisTypo := writeConfig(t, "redis:\n  adr: 10.0.0.5:6379\naccess:\n  allow_user: [alice]\n")
	longconn := writeConfig(t, "wecom:\n  aibot:\n    mode: longconn\n    bot_id: b\n    secret: s\n")
	app := writeConfig(t, "wecom:\n  app:\n    corp_id: ww1\n    agent_id: \"1000002\"\n    secret: s\n    token: t\n    encoding_aes_key: "+e2eAESKey+"\n")
	playgroundEverywhere := writeConfig(t, "server:\n  addr: \":8080\"\nplayground:\n  enabled: true\n")
	publicKey := writeConfig(t, "server:\n  addr: 0.0.0.0:8080\nwecom:\n  aibot:\n    token: wecodex-local-playground\n    encoding_aes_key: wecodexLocalPlaygroundKeyNotASecretNotProd0\n")
	many := writeConfig(t, "redis:\n  db: lots\nagent:\n  turn_timeout: 30\ncards:\n  progress_style: loud\n")
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"9-character AES key", []string{"check-config", "--config", badKey}, 1, "",
			"error: wecom.aibot.encoding_aes_key: must be 43 characters (the EncodingAESKey from the WeCom admin console), not 9\n" +
				"error: agent.kind: must be one of codex, acp, not \"gpt\"\n" +
				"error: agent.turn_timeout: must be a positive duration like 500ms or 30m, not 0s\n" +
				badKey + ": config has errors\n"},
		// One edit from a known key: surely that key, silently ignored until
		// now (this case said "config OK" before).
		{"misspelt key is an error", []string{"check-config", "-config", typo}, 1, "",
			"error: server.adr: unknown key; did you mean server.addr? (as spelt it is ignored, leaving server.addr at its default)\n" +
				typo + ": config has errors\n"},
		{"misspelt redis and access keys", []string{"check-config", "--config", redisTypo}, 1, "",
			"error: access.allow_user: unknown key; did you mean access.allow_users? (as spelt it is ignored, leaving access.allow_users at its default)\n" +
				"error: redis.adr: unknown key; did you mean redis.addr? (as spelt it is ignored, leaving redis.addr at its default)\n" +
				redisTypo + ": config has errors\n"},
		{"unknown key further off is a warning", []string{"check-config", "-config", farTypo}, 0, "config OK\n",
			"warning: server.addres: unknown key, ignored; did you mean server.addr?\n"},
		{"longconn with bot id and secret", []string{"check-config", "--config", longconn}, 0, "config OK\n", ""},
		{"the self-built app with its five values", []string{"check-config", "--config", app}, 0, "config OK\n", ""},
		{"playground on every interface", []string{"check-config", "--config", playgroundEverywhere}, 1, "",
			"error: server.addr: must be a loopback address like 127.0.0.1:8080 while playground.enabled is true, not \":8080\": " +
				"whoever reaches the playground drives the agent; listen on loopback, or set playground.enabled: false to serve WeCom on this address\n" +
				playgroundEverywhere + ": config has errors\n"},
		{"public playground key beyond loopback", []string{"check-config", "--config", publicKey}, 1, "",
			"error: wecom.aibot.encoding_aes_key: is the well-known local playground key (wecom.aibot.token \"wecodex-local-playground\" is too), published with wecodex: " +
				"anyone could sign callbacks with it, so wecodex only listens on loopback with it, not on \"0.0.0.0:8080\"; " +
				"set wecom.aibot.token and wecom.aibot.encoding_aes_key to the Token and EncodingAESKey from the WeCom admin console, " +
				"or remove both to let the playground make its own, or set server.addr to 127.0.0.1:8080\n" + publicKey + ": config has errors\n"},
		{"every value error at once", []string{"check-config", "--config", many}, 1, "",
			"error: redis.db: must be a whole number, not \"lots\"\n" +
				"error: agent.turn_timeout: must be a duration with a unit, like 500ms, 30s or 30m, not 30\n" +
				"error: cards.progress_style: must be one of think, quote, not \"loud\"\n" + many + ": config has errors\n"},
		{"local default", []string{"check-config", "--config", repoFile(t, "configs/wecodex.yaml")}, 0, "config OK\n", ""},
		{"example", []string{"check-config", "--config", repoFile(t, "configs/wecodex.example.yaml")}, 0, "config OK\n", ""},
		{"missing file", []string{"check-config", "--config", "/nonexistent/w.yaml"}, 1, "",
			"error: read config: open /nonexistent/w.yaml: no such file or directory\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runBin(t, tc.args...)
			// The start warnings (machine-dependent) are TestCheckConfigStartWarnings'.
			r.stderr = withoutStartWarnings(r.stderr)
			if r.code != tc.code || r.stdout != tc.stdout || r.stderr != tc.stderr {
				t.Fatalf("exit %d, stdout %q, stderr:\n%s\nwant exit %d, stdout %q, stderr:\n%s",
					r.code, r.stdout, r.stderr, tc.code, tc.stdout, tc.stderr)
			}
		})
	}
}

// A WECODEX_* variable under a config section that names no key is an
// error, in check-config and serve alike; the test suite's own are not.
func TestCheckConfigEnvironment(t *testing.T) {
	p := writeConfig(t, "log:\n  level: info\n")
	cmd := command(t, "check-config", "--config", p)
	cmd.Env = append(cmd.Env, "WECODEX_REDIS_ADR=10.0.0.5:6379", "WECODEX_TEST_SOMETHING=1")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	_ = cmd.Run()
	want := "error: WECODEX_REDIS_ADR: matches no config key, so it is ignored; did you mean WECODEX_REDIS_ADDR (redis.addr)?\n" + p + ": config has errors\n"
	if code := cmd.ProcessState.ExitCode(); code != 1 || out.String() != "" || errOut.String() != want {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s\nwant exit 1, stderr:\n%s", code, out.String(), errOut.String(), want)
	}
}

func TestUsageAndVersion(t *testing.T) {
	for _, args := range [][]string{nil, {"frobnicate"}} {
		r := runBin(t, args...)
		if r.code != 2 || !strings.Contains(r.stderr, "Usage:\n  wecodex serve") {
			t.Errorf("%q: exit %d, stderr %q", args, r.code, r.stderr)
		}
	}
	// Help asked for is an answer: stdout, exit 0.
	for _, args := range [][]string{{"help"}, {"--help"}, {"-h"}} {
		r := runBin(t, args...)
		if r.code != 0 || !strings.Contains(r.stdout, "Usage:\n  wecodex serve") || !strings.Contains(r.stdout, "--strict") {
			t.Errorf("%q: exit %d, stdout %q", args, r.code, r.stdout)
		}
	}
	// Each subcommand's --help describes its flags and exits 0.
	for _, tc := range []struct{ cmd, flag string }{
		{"serve", "-config PATH"}, {"codex-acp", "-config PATH"}, {"check-config", "-strict"},
		{"sessions", "-conversation KEY"},
	} {
		r := runBin(t, tc.cmd, "--help")
		if r.code != 0 || !strings.Contains(r.stderr, tc.flag) {
			t.Errorf("%s --help: exit %d, stderr %q", tc.cmd, r.code, r.stderr)
		}
	}
	r := runBin(t, "version")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "wecodex dev") || !strings.Contains(r.stdout, " go1.") {
		t.Errorf("version: exit %d, stdout %q", r.code, r.stdout)
	}
	r = runBin(t, "serve", "extra")
	if r.code != 2 || !strings.Contains(r.stderr, `unexpected argument "extra"`) {
		t.Errorf("serve extra: exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestServeRefusesAnInvalidConfig(t *testing.T) {
	for _, tc := range []struct{ name, yaml, want string }{
		{"bad value", "cards:\n  progress_style: loud\n",
			"error: cards.progress_style: must be one of think, quote, not \"loud\"\n"},
		// The same warnings and errors as check-config, all at once.
		{"typo, warning and value", "redis:\n  adr: x:1\nserver:\n  addres: x\nagent:\n  turn_timeout: 30\n",
			"warning: server.addres: unknown key, ignored; did you mean server.addr?\n" +
				"wecodex serve: invalid config %s:\n" +
				"error: agent.turn_timeout: must be a duration with a unit, like 500ms, 30s or 30m, not 30\n" +
				"error: redis.adr: unknown key; did you mean redis.addr? (as spelt it is ignored, leaving redis.addr at its default)\n"},
		{"playground on every interface", "server:\n  addr: 0.0.0.0:0\nplayground:\n  enabled: true\n",
			"error: server.addr: must be a loopback address like 127.0.0.1:8080 while playground.enabled is true, not \"0.0.0.0:0\": " +
				"whoever reaches the playground drives the agent; listen on loopback, or set playground.enabled: false to serve WeCom on this address\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeConfig(t, tc.yaml)
			want := tc.want
			if strings.Contains(want, "%s") {
				want = fmt.Sprintf(want, p)
			} else {
				want = "wecodex serve: invalid config " + p + ":\n" + want
			}
			r := runBin(t, "serve", "--config", p)
			if r.code != 1 || r.stderr != want {
				t.Fatalf("exit %d, stderr:\n%s\nwant:\n%s", r.code, r.stderr, want)
			}
		})
	}
}

// startServe runs `wecodex serve` on a free loopback port and returns its base
// URL once it listens. The server is stopped with SIGTERM by stopServe.
func startServe(t *testing.T, yaml string) (base string, stop func() (code int, logs []map[string]any)) {
	t.Helper()
	cfg := writeConfig(t, "server:\n  addr: 127.0.0.1:0\nlog:\n  format: json\n"+yaml)
	cmd := command(t, "serve", "--config", cfg)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var logs []map[string]any
	listening := make(chan string, 1)
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			var rec map[string]any
			if json.Unmarshal(sc.Bytes(), &rec) != nil {
				rec = map[string]any{"raw": sc.Text()}
			}
			logs = append(logs, rec)
			if rec["msg"] == "listening" {
				listening <- rec["addr"].(string)
			}
		}
		close(listening)
	}()
	addr, ok := <-listening
	if !ok {
		<-drained
		_ = cmd.Wait()
		t.Fatalf("serve exited before listening; logs: %v", logs)
	}
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	return "http://" + addr, func() (int, []map[string]any) {
		stopped = true
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		<-drained
		_ = cmd.Wait()
		return cmd.ProcessState.ExitCode(), logs
	}
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

func TestServeWithEmbeddedRedis(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-codex-here")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, yaml  string
		readyStatus int
		readyBody   string
	}{
		{"agent missing", "redis:\n  addr: \"\"\nagent:\n  codex:\n    bin: " + missing + "\n", 503,
			`{"ready":false,"problems":{"agent":"` + missing + ` is not an executable file: install @openai/codex or set agent.codex.bin"},"channels":{"wecom_aibot":"off"}}` + "\n"},
		{"agent not in PATH", "agent:\n  codex:\n    bin: no-such-codex-wecodex-test\n", 503,
			`{"ready":false,"problems":{"agent":"no-such-codex-wecodex-test not found in PATH: install @openai/codex or set agent.codex.bin"},"channels":{"wecom_aibot":"off"}}` + "\n"},
		{"acp agent missing", "agent:\n  kind: acp\n  acp:\n    command: [" + missing + ", --stdio]\n", 503,
			`{"ready":false,"problems":{"agent":"` + missing + ` is not an executable file: install the agent or fix agent.acp.command"},"channels":{"wecom_aibot":"off"}}` + "\n"},
		{"agent found", "agent:\n  codex:\n    bin: " + self + "\n", 200, `{"ready":true,"channels":{"wecom_aibot":"off"}}` + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base, stop := startServe(t, tc.yaml)
			if code, body := get(t, base+"/healthz"); code != 200 || body != "ok" {
				t.Errorf("/healthz = %d %q", code, body)
			}
			if code, body := get(t, base+"/readyz"); code != tc.readyStatus || body != tc.readyBody {
				t.Errorf("/readyz = %d %s\nwant %d %s", code, body, tc.readyStatus, tc.readyBody)
			}
			code, logs := stop()
			if code != 0 {
				t.Fatalf("serve exited %d after SIGTERM; logs: %v", code, logs)
			}
			var msgs []string
			for _, l := range logs {
				if m, ok := l["msg"].(string); ok {
					msgs = append(msgs, l["level"].(string)+" "+m)
				} else {
					msgs = append(msgs, fmt.Sprint(l))
				}
			}
			var wantMsgs []string
			for _, w := range servesOwnStartWarnings(startConfig(t, tc.yaml)) {
				wantMsgs = append(wantMsgs, "WARN config: "+w.Message)
			}
			wantMsgs = append(wantMsgs,
				"WARN redis.addr is empty: using an embedded in-memory Redis; nothing survives a restart and replicas cannot share state",
				"INFO listening",
			)
			if tc.readyStatus == 503 {
				wantMsgs = append(wantMsgs, "WARN not ready")
			}
			wantMsgs = append(wantMsgs, "INFO shutting down", "INFO stopped")
			if strings.Join(msgs, "\n") != strings.Join(wantMsgs, "\n") {
				t.Errorf("logs:\n%s\nwant:\n%s", strings.Join(msgs, "\n"), strings.Join(wantMsgs, "\n"))
			}
		})
	}
}
