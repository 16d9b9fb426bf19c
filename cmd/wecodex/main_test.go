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
		{"unknown key is a warning", []string{"check-config", "-config", typo}, 0, "config OK\n",
			"warning: server.adr: unknown key, ignored; did you mean server.addr?\n"},
		{"local default", []string{"check-config", "--config", repoFile(t, "configs/wecodex.yaml")}, 0, "config OK\n", ""},
		{"example", []string{"check-config", "--config", repoFile(t, "configs/wecodex.example.yaml")}, 0, "config OK\n", ""},
		{"missing file", []string{"check-config", "--config", "/nonexistent/w.yaml"}, 1, "",
			"error: read config: open /nonexistent/w.yaml: no such file or directory\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runBin(t, tc.args...)
			if r.code != tc.code || r.stdout != tc.stdout || r.stderr != tc.stderr {
				t.Fatalf("exit %d, stdout %q, stderr:\n%s\nwant exit %d, stdout %q, stderr:\n%s",
					r.code, r.stdout, r.stderr, tc.code, tc.stdout, tc.stderr)
			}
		})
	}
}

func TestUsageAndVersion(t *testing.T) {
	for _, args := range [][]string{nil, {"help"}, {"frobnicate"}} {
		r := runBin(t, args...)
		if r.code != 2 || !strings.Contains(r.stderr, "Usage:\n  wecodex serve") {
			t.Errorf("%q: exit %d, stderr %q", args, r.code, r.stderr)
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
	p := writeConfig(t, "cards:\n  progress_style: loud\n")
	r := runBin(t, "serve", "--config", p)
	want := "wecodex serve: invalid config " + p + ":\nerror: cards.progress_style: must be one of think, quote, not \"loud\"\n"
	if r.code != 1 || r.stderr != want {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
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
			wantMsgs := []string{
				"WARN redis.addr is empty: using an embedded in-memory Redis; nothing survives a restart and replicas cannot share state",
				"INFO listening",
			}
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
