package demo

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/wecodex/wecodex/internal/codextest"
)

// TestReadmeQuickStart follows the README's "From clone to a running bot"
// and "Log Codex in for the bot" in a fresh clone with an empty HOME, and
// checks the log lines and answers the README quotes. Skipped, saying so:
// what needs the network (npm installing Codex: the clone gets this
// checkout's pinned .tools/codex; Go modules: GOPROXY=off on the shared
// module cache; make login's browser sign-in). The one change to the
// commands as written: 127.0.0.1:8080 is a free port, so a bot already
// running here is not disturbed.
func TestReadmeQuickStart(t *testing.T) {
	for _, bin := range []string{"git", "make", "curl"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Skipf("%s is not installed", bin)
		}
	}
	readme := readReadme(t)
	quick := section(t, readme, "## From clone to a running bot")
	login := section(t, readme, "### Log Codex in for the bot")
	commands := block(t, quick, "```sh\n")
	wantLogs := block(t, quick, "`make run` logs, in this order:\n\n```\n")
	refusal := block(t, login, "```\n$ WECODEX_SERVER_ADDR")
	wantLogin := block(t, login, "```\nwecodex codex-login: logging")

	addr := quickFreeAddr(t)
	dir := t.TempDir()
	clone := filepath.Join(dir, "wecodex")
	env := quickEnv(t, filepath.Join(dir, "home"))

	lines := strings.Split(commands, "\n")
	if len(lines) != 4 || lines[0] != "git clone <this repo> wecodex && cd wecodex" || !strings.HasPrefix(lines[1], "make run ") {
		t.Fatalf("the quick start's commands changed; update this test:\n%s", commands)
	}
	run(t, dir, env, "git", "clone", "-q", moduleRoot(t), clone)
	t.Log("skipped (network only): npm installing Codex into .tools/; the clone gets this checkout's pinned Codex instead")
	if err := os.MkdirAll(filepath.Join(clone, ".tools"), 0o755); err != nil {
		t.Fatal(err)
	}
	pinned := filepath.Dir(filepath.Dir(filepath.Dir(codextest.CodexBin(t)))) // .tools/codex
	if err := os.Symlink(pinned, filepath.Join(clone, ".tools", "codex")); err != nil {
		t.Fatal(err)
	}

	serve := startMakeRun(t, clone, append(env, "WECODEX_SERVER_ADDR="+addr))
	serve.waitFor(t, `msg=listening addr=`+regexp.QuoteMeta(addr)+` `)
	checkLogsInOrder(t, serve.text(), strings.ReplaceAll(wantLogs, "127.0.0.1:8080", addr))
	for _, l := range lines[2:] {
		cmdline, want, _ := strings.Cut(l, "#")
		got := run(t, clone, env, "bash", "-c", strings.ReplaceAll(strings.TrimSpace(cmdline), "127.0.0.1:8080", addr))
		if want = strings.TrimSpace(want); !regexp.MustCompile("^" + quotedPattern(want) + "$").MatchString(got) {
			t.Errorf("%s answered %q, the README says %q", strings.TrimSpace(cmdline), got, want)
		}
	}

	// The login, with a key on stdin (the README's third way); make login
	// and the browser sign-in need the network.
	t.Log("skipped (network only): make login and bin/wecodex codex-login's browser sign-in")
	cmd := exec.Command("bash", "-c", "printenv OPENAI_API_KEY | bin/wecodex codex-login --with-api-key")
	cmd.Dir, cmd.Env = clone, append(env, "OPENAI_API_KEY=sk-wecodex-quickstart-not-a-key")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("codex-login --with-api-key: %v\n%s", err, out)
	}
	if re := quotedLine(wantLogin); !re.MatchString(string(out)) {
		t.Errorf("codex-login said\n%s\nthe README quotes %q", out, wantLogin)
	}
	// "until a login appears (no restart needed)": /readyz drops the warning.
	waitReady(t, addr, func(r readyzAnswer) bool { return r.Ready && len(r.AgentWarnings) == 0 })

	// The refusal the README quotes for a non-loopback address.
	refusalCmd, wantRefusal, _ := strings.Cut(refusal, "\n")
	cmd = exec.Command("bash", "-c", strings.TrimPrefix(refusalCmd, "$ "))
	cmd.Dir, cmd.Env = clone, env
	out, err = cmd.CombinedOutput()
	if err == nil || strings.TrimSpace(string(out)) != wantRefusal {
		t.Errorf("%s: %v\n%s\nthe README quotes:\n%s", refusalCmd, err, out, wantRefusal)
	}
	serve.stop(t)
}

func readReadme(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(moduleRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// section is the README from heading to the next heading of any level.
func section(t *testing.T, readme, heading string) string {
	t.Helper()
	i := strings.Index(readme, "\n"+heading+"\n")
	if i < 0 {
		t.Fatalf("README.md has no %q", heading)
	}
	s := readme[i+len(heading)+2:]
	if j := strings.Index(s, "\n#"); j >= 0 {
		s = s[:j]
	}
	return s
}

// block is the body of the fenced block that begins at opening (the fence
// and what follows it, kept in the body past the fence line).
func block(t *testing.T, text, opening string) string {
	t.Helper()
	i := strings.Index(text, opening)
	if i < 0 {
		t.Fatalf("README.md has no block opening %q", opening)
	}
	body := text[i:]
	body = body[strings.Index(body, "```"):]
	body = body[strings.Index(body, "\n")+1:]
	end := strings.Index(body, "\n```")
	if end < 0 {
		t.Fatalf("the block opening %q does not close", opening)
	}
	return body[:end]
}

// quotedLine matches the end of a line the README quotes (a log line's
// time= and the like may come before it).
func quotedLine(line string) *regexp.Regexp {
	return regexp.MustCompile(`(?m)` + quotedPattern(line) + `$`)
}

// quotedPattern is a quoted text as a pattern, "…" standing for anything.
func quotedPattern(text string) string {
	parts := strings.Split(text, "…")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return strings.Join(parts, `.*`)
}

// checkLogsInOrder: each quoted line appears in the log, in the README's
// order (other lines may come between).
func checkLogsInOrder(t *testing.T, log, quoted string) {
	t.Helper()
	rest := log
	for _, q := range strings.Split(quoted, "\n") {
		loc := quotedLine(q).FindStringIndex(rest)
		if loc == nil {
			t.Errorf("make run did not log, after the lines before it, %q\nlog:\n%s", q, log)
			return
		}
		rest = rest[loc[1]:]
	}
}

// quickEnv is a new user's environment: an empty HOME, nothing of this
// session's WECODEX_ variables, and Go on the shared caches with no
// network (GOPROXY=off: a module missing from the cache fails, saying so).
func quickEnv(t *testing.T, home string) []string {
	t.Helper()
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8", "GOPROXY=off", "GOFLAGS=-mod=readonly", "GOTOOLCHAIN=local"}
	for _, k := range []string{"GOCACHE", "GOMODCACHE", "GOPATH"} {
		out, err := exec.Command("go", "env", k).Output()
		if err != nil {
			t.Fatal(err)
		}
		env = append(env, k+"="+strings.TrimSpace(string(out)))
	}
	return env
}

func run(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %q: %v\n%s", name, args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func quickFreeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// makeRun is `make run` in the background, its output kept.
type makeRun struct {
	cmd    *exec.Cmd
	mu     sync.Mutex
	out    strings.Builder
	change chan struct{} // a token after each line
	done   chan struct{}
}

func startMakeRun(t *testing.T, dir string, env []string) *makeRun {
	t.Helper()
	m := &makeRun{cmd: exec.Command("make", "run"), change: make(chan struct{}, 1), done: make(chan struct{})}
	m.cmd.Dir, m.cmd.Env = dir, env
	m.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	pipe, err := m.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	m.cmd.Stderr = m.cmd.Stdout
	if err := m.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pgid := m.cmd.Process.Pid
	t.Cleanup(func() { _ = syscall.Kill(-pgid, syscall.SIGKILL) })
	go func() {
		defer close(m.done)
		sc := bufio.NewScanner(pipe)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			m.mu.Lock()
			m.out.WriteString(sc.Text() + "\n")
			m.mu.Unlock()
			select {
			case m.change <- struct{}{}:
			default:
			}
		}
		_, _ = io.Copy(io.Discard, pipe)
	}()
	return m
}

func (m *makeRun) text() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.out.String()
}

// waitFor waits until the output matches pattern; the bound (a cold build
// of the clone on a loaded machine) is a safety net only.
func (m *makeRun) waitFor(t *testing.T, pattern string) {
	t.Helper()
	re := regexp.MustCompile(pattern)
	deadline := time.After(5 * time.Minute)
	for !re.MatchString(m.text()) {
		select {
		case <-m.change:
		case <-m.done:
			if !re.MatchString(m.text()) {
				t.Fatalf("make run ended before logging %s:\n%s", pattern, m.text())
			}
		case <-deadline:
			t.Fatalf("make run did not log %s:\n%s", pattern, m.text())
		}
	}
}

// stop presses Ctrl-C, as the README's user does, and waits for serve's
// stopped line.
func (m *makeRun) stop(t *testing.T) {
	t.Helper()
	_ = syscall.Kill(-m.cmd.Process.Pid, syscall.SIGINT)
	<-m.done
	_ = m.cmd.Wait()
	if !strings.Contains(m.text(), "level=INFO msg=stopped") {
		t.Errorf("make run did not log stopped after Ctrl-C:\n%s", m.text())
	}
}

type readyzAnswer struct {
	Ready         bool     `json:"ready"`
	AgentWarnings []string `json:"agent_warnings"`
}

// waitReady polls /readyz until ok says yes: a login is seen when serve
// next looks, which the README promises without a restart. The bound is a
// safety net, not an assertion about speed.
func waitReady(t *testing.T, addr string, ok func(readyzAnswer) bool) {
	t.Helper()
	var last string
	for end := time.Now().Add(2 * time.Minute); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		resp, err := http.Get("http://" + addr + "/readyz")
		if err != nil {
			last = err.Error()
			continue
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		last = string(raw)
		var r readyzAnswer
		if json.Unmarshal(raw, &r) == nil && ok(r) {
			return
		}
	}
	t.Fatalf("/readyz never answered as wanted; last: %s", last)
}
