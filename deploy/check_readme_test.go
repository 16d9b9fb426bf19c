package deploy

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wecodex/wecodex/internal/codextest"
	"github.com/wecodex/wecodex/internal/testenv"
)

// systemctlEnv, when set, makes this test binary play `systemctl` for the
// README's script (the shim on its PATH runs it so); its value is the
// temporary root.
const systemctlEnv = "WECODEX_README_SYSTEMCTL_ROOT"

func TestMain(m *testing.M) {
	if root := os.Getenv(systemctlEnv); root != "" {
		if err := systemctl(root, os.Args[1:]); err != nil {
			fmt.Fprintln(os.Stderr, "systemctl (README test):", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// systemdBlockMark comes right before each shell block of "Deploying to
// WeCom" that belongs to the systemd path, in the order an admin runs them.
const systemdBlockMark = "<!-- deploy-test: systemd -->"

// networkOnly are the README's commands that need the network (or a person
// at a browser): the script skips them, saying so. What they install is
// given instead: the pinned Codex on PATH; Redis is the test's.
var networkOnly = regexp.MustCompile(`^(apt-get install|npm install --global)|--device-auth`)

// TestReadmeSystemdPathRuns runs the systemd blocks of the README's
// "Deploying to WeCom" top to bottom, as root would from a checkout, against
// a temporary root: every path under /etc, /usr/local/bin and /var/lib is
// moved under it, useradd, sudo -u and install's owners are no-ops (the test
// user owns everything), and systemctl is played by this binary: it runs
// systemd-analyze verify and starts the unit's ExecStart= with its
// Environment= and LoadCredential= as systemd would. A command that needs a
// file or binary a later step makes fails the script, so the order stays
// right.
func TestReadmeSystemdPathRuns(t *testing.T) {
	if _, err := exec.LookPath("systemd-analyze"); err != nil {
		t.Skip("systemd-analyze is not installed (make test installs it)")
	}
	blocks := systemdBlocks(t)
	root, work, shims := t.TempDir(), t.TempDir(), t.TempDir()
	addr := freeAddr(t)
	rewrite := rootRewriter(root, addr)
	for _, dir := range []string{"usr/local/bin", "etc/systemd/system", "run", "var/log"} {
		if err := os.MkdirAll(filepath.Join(root, dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The checkout: the deploy files, their paths moved under root.
	for _, name := range []string{"wecodex.yaml", "wecodex.service"} {
		raw, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(work, "deploy", name), rewrite.Replace(string(raw)), 0o644)
	}
	writeShims(t, shims, root, work)
	writeServiceEnv(t, root, addr)

	var script strings.Builder
	script.WriteString("set -euo pipefail\n")
	var skipped []string
	for _, line := range strings.Split(strings.Join(blocks, "\n"), "\n") {
		if networkOnly.MatchString(line) {
			skipped = append(skipped, line)
			line = "echo 'skipped (network only): " + strings.ReplaceAll(line, "'", `'\''`) + "'"
		}
		script.WriteString(rewrite.Replace(line) + "\n")
	}
	for _, l := range skipped {
		t.Logf("skipped (network only): %s", l)
	}
	t.Cleanup(func() { stopService(t, root) })

	codexDir := filepath.Dir(codextest.CodexBin(t))
	cmd := exec.Command("bash", "-c", script.String())
	cmd.Dir = work
	cmd.Env = []string{
		"PATH=" + strings.Join([]string{shims, filepath.Join(root, "usr/local/bin"), codexDir, os.Getenv("PATH")}, ":"),
		"HOME=" + t.TempDir(),
		"LANG=C.UTF-8",
		"OPENAI_API_KEY=sk-wecodex-readme-test-not-a-key",
		"GOCACHE=" + goEnv(t, "GOCACHE"), "GOPATH=" + goEnv(t, "GOPATH"), "GOFLAGS=" + os.Getenv("GOFLAGS"),
	}
	out, err := cmd.CombinedOutput()
	text := string(out)
	serviceLog, _ := os.ReadFile(filepath.Join(root, "var/log/wecodex.log"))
	if err != nil {
		t.Fatalf("the README's systemd path failed: %v\n%s\nservice log:\n%s", err, text, serviceLog)
	}
	t.Logf("the script said:\n%s", text)
	if !strings.Contains(text, "config OK") {
		t.Errorf("check-config did not say config OK:\n%s", text)
	}
	checkReady(t, text)
	home := filepath.Join(root, "var/lib/wecodex/codex-home")
	if want := fmt.Sprintf(`"msg":"codex","bin":"codex","codex_home":%q,"logged_in":true`, home); !strings.Contains(string(serviceLog), want) {
		t.Errorf("the service did not log the login codex-login made (%s):\n%s", want, serviceLog)
	}
}

// systemdBlocks returns the marked shell blocks of "Deploying to WeCom".
func systemdBlocks(t *testing.T) []string {
	t.Helper()
	raw, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(raw)
	start := strings.Index(text, "\n## Deploying to WeCom\n")
	if start < 0 {
		t.Fatal(`README.md has no "## Deploying to WeCom"`)
	}
	section := text[start+1:]
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	var blocks []string
	for _, part := range strings.Split(section, systemdBlockMark+"\n")[1:] {
		body, ok := strings.CutPrefix(part, "```sh\n")
		end := strings.Index(body, "\n```")
		if !ok || end < 0 {
			t.Fatalf("%s is not followed by a ```sh block", systemdBlockMark)
		}
		blocks = append(blocks, body[:end])
	}
	if len(blocks) < 4 {
		t.Fatalf("found %d systemd blocks in Deploying to WeCom, want at least 4", len(blocks))
	}
	return blocks
}

// rootRewriter moves the deployment's absolute paths under root and the
// unit's port to addr, and fills in the secrets.
func rootRewriter(root, addr string) *strings.Replacer {
	var pairs []string
	for _, p := range []string{"/etc/wecodex", "/etc/systemd/system", "/usr/local/bin", "/var/lib/wecodex"} {
		pairs = append(pairs, p, root+p)
	}
	// What the admin pastes from the console.
	pairs = append(pairs, "<Token from the console>", "deployTestToken",
		"<EncodingAESKey from the console>", "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8")
	return strings.NewReplacer(append(pairs, "127.0.0.1:8080", addr)...)
}

// writeShims puts on the script's PATH what stands in for the commands that
// would change the real machine.
func writeShims(t *testing.T, dir, root, work string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	makeBin, err := exec.LookPath("make")
	if err != nil {
		t.Skip("make is not installed")
	}
	installBin, err := exec.LookPath("install")
	if err != nil {
		t.Fatal(err)
	}
	modRoot, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	shims := map[string]string{
		// The checkout's make, building into the script's bin/.
		"make":      fmt.Sprintf("exec %s -s -C %s BIN=%s/bin \"$@\"\n", makeBin, modRoot, work),
		"useradd":   "exit 0  # the test's user stands in for wecodex\n",
		"sudo":      "[ \"$1\" = -u ] && shift 2\nexec \"$@\"\n",
		"install":   "a=()\nwhile [ $# -gt 0 ]; do case \"$1\" in -o|-g) shift 2;; *) a+=(\"$1\"); shift;; esac; done\nexec " + installBin + " \"${a[@]}\"\n",
		"systemctl": fmt.Sprintf("exec env %s=%s %s \"$@\"\n", systemctlEnv, root, self),
	}
	for name, body := range shims {
		writeFile(t, filepath.Join(dir, name), "#!/bin/bash\n"+body, 0o755)
	}
}

// writeServiceEnv keeps what the started unit gets beyond its own
// Environment=: the test's Redis under a prefix of its own, a free port
// instead of :8080 and no metrics port, so nothing collides.
func writeServiceEnv(t *testing.T, root, addr string) {
	t.Helper()
	opt := testenv.RedisOptions(t)
	env := []string{
		"WECODEX_SERVER_ADDR=" + addr,
		"WECODEX_METRICS_ADDR=127.0.0.1:0",
		"WECODEX_REDIS_ADDR=" + opt.Addr,
		"WECODEX_REDIS_PASSWORD=" + opt.Password,
		"WECODEX_REDIS_DB=" + strconv.Itoa(opt.DB),
		"WECODEX_REDIS_PREFIX=" + testenv.Prefix(t, "readme-systemd"),
	}
	writeFile(t, filepath.Join(root, "run/test-env"), strings.Join(env, "\n")+"\n", 0o600)
}

func writeFile(t *testing.T, path, text string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), mode); err != nil {
		t.Fatal(err)
	}
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func goEnv(t *testing.T, key string) string {
	t.Helper()
	out, err := exec.Command("go", "env", key).Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// checkReady finds the /readyz answer the script's curl printed: ready, with
// the channels the README quotes.
func checkReady(t *testing.T, text string) {
	t.Helper()
	for _, line := range strings.Split(text, "\n") {
		if !strings.HasPrefix(line, `{"ready":`) {
			continue
		}
		var got struct {
			Ready    bool              `json:"ready"`
			Channels map[string]string `json:"channels"`
		}
		if err := json.Unmarshal([]byte(line), &got); err != nil {
			t.Fatalf("readyz %q: %v", line, err)
		}
		if !got.Ready || len(got.Channels) != 1 || got.Channels["wecom_aibot"] != "webhook /wecom/aibot" {
			t.Errorf("readyz %s, want ready with the README's channels {\"wecom_aibot\":\"webhook /wecom/aibot\"}", line)
		}
		return
	}
	t.Errorf("no /readyz answer in the script's output:\n%s", text)
}

// stopService ends the unit the script started, as systemctl stop would
// (SIGTERM: serve drains and stops its Codex), and waits for it to go.
func stopService(t *testing.T, root string) {
	raw, err := os.ReadFile(filepath.Join(root, "run/wecodex.pid"))
	if err != nil {
		return // never started
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil {
		t.Error(err)
		return
	}
	_ = syscall.Kill(pid, syscall.SIGTERM)
	// A safety net, not a timing assertion: past it the group is killed.
	for end := time.Now().Add(time.Minute); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if syscall.Kill(pid, 0) != nil {
			return
		}
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	t.Errorf("the service (pid %d) did not stop within a minute of SIGTERM; killed", pid)
}

// systemctl is the README script's systemctl: daemon-reload does nothing;
// enable --now wecodex verifies the installed unit with systemd-analyze and
// starts it as systemd would, returning once it listens.
func systemctl(root string, args []string) error {
	switch strings.Join(args, " ") {
	case "daemon-reload":
		return nil
	case "enable --now wecodex":
	default:
		return fmt.Errorf("the README test plays only daemon-reload and enable --now wecodex, not %q", args)
	}
	unit := filepath.Join(root, "etc/systemd/system/wecodex.service")
	if out, err := exec.Command("systemd-analyze", "verify", unit).CombinedOutput(); err != nil || len(out) != 0 {
		return fmt.Errorf("systemd-analyze verify %s: %v\n%s", unit, err, out)
	}
	cmd, err := unitCommand(root, unit)
	if err != nil {
		return err
	}
	logPath := filepath.Join(root, "var/log/wecodex.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer logFile.Close()
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(root, "run/wecodex.pid"), []byte(strconv.Itoa(cmd.Process.Pid)), 0o644); err != nil {
		return err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	// Returns once serve logs that it listens (or exits): the condition the
	// README's next command, curl /readyz, needs.
	for end := time.Now().Add(2 * time.Minute); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		select {
		case err := <-exited:
			return fmt.Errorf("wecodex exited at start: %v (log %s)", err, logPath)
		default:
		}
		if listening(logPath) {
			return nil
		}
	}
	return fmt.Errorf("wecodex did not log listening within 2 minutes (log %s)", logPath)
}

func listening(logPath string) bool {
	raw, err := os.ReadFile(logPath)
	return err == nil && strings.Contains(string(raw), `"msg":"listening"`)
}

// unitCommand is the unit's ExecStart= with the environment systemd would
// give it: its Environment= lines, %d as a credentials directory holding a
// copy of each LoadCredential= file, and the test's overrides.
func unitCommand(root, unit string) (*exec.Cmd, error) {
	f, err := os.Open(unit)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	creds := filepath.Join(root, "run/credentials/wecodex.service")
	if err := os.MkdirAll(creds, 0o700); err != nil {
		return nil, err
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + filepath.Join(root, "var/lib/wecodex"), "CREDENTIALS_DIRECTORY=" + creds}
	var argv []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		key, value, ok := strings.Cut(sc.Text(), "=")
		if !ok || strings.HasPrefix(key, "#") {
			continue
		}
		value = strings.ReplaceAll(value, "%d", creds)
		switch key {
		case "Environment":
			env = append(env, value)
		case "ExecStart":
			argv = strings.Fields(value)
		case "LoadCredential":
			name, src, _ := strings.Cut(value, ":")
			raw, err := os.ReadFile(src)
			if err != nil {
				return nil, fmt.Errorf("LoadCredential=%s: %w", value, err)
			}
			if err := os.WriteFile(filepath.Join(creds, name), raw, 0o400); err != nil {
				return nil, err
			}
		}
	}
	if len(argv) == 0 {
		return nil, errors.New("the unit has no ExecStart=")
	}
	extra, err := os.ReadFile(filepath.Join(root, "run/test-env"))
	if err != nil {
		return nil, err
	}
	env = append(env, strings.Fields(string(extra))...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	return cmd, nil
}
