package demo

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/wecodex/wecodex/internal/codextest"
	"github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/testenv"
)

// ChromiumEnv points the browser tests at a Chromium other than Debian's.
const ChromiumEnv = "WECODEX_TEST_CHROMIUM"

// wecodexBin is the binary built once for the package's tests by TestMain.
var wecodexBin string

func TestMain(m *testing.M) { testenv.RunWithWecodex(m, &wecodexBin) }

// moduleRoot is two levels above this package.
func moduleRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// redisEnv points serve at the test Redis ($REDIS_URL, default
// redis://127.0.0.1:6379) under a key prefix of its own, deleted at cleanup.
func redisEnv(t *testing.T) []string {
	t.Helper()
	opt := testenv.RedisOptions(t)
	prefix := testenv.Prefix(t, "playground")
	return []string{
		"WECODEX_REDIS_ADDR=" + opt.Addr,
		"WECODEX_REDIS_PASSWORD=" + opt.Password,
		"WECODEX_REDIS_DB=" + strconv.Itoa(opt.DB),
		"WECODEX_REDIS_PREFIX=" + prefix,
	}
}

// startDemo runs the demo setup — real wecodex serve, real Codex on the demo
// script, real Redis — on a free loopback port, with env added last.
func startDemo(t *testing.T, env ...string) *Demo {
	t.Helper()
	return startDemoScript(t, nil, env...)
}

// startDemoScript is startDemo with Codex answered by script (nil: Script()).
func startDemoScript(t *testing.T, script scriptedmodel.Script, env ...string) *Demo {
	t.Helper()
	return startDemoConfig(t, "wecodex.yaml", script, env...)
}

// startDemoConfig is startDemoScript serving configs/<config>.
func startDemoConfig(t *testing.T, config string, script scriptedmodel.Script, env ...string) *Demo {
	t.Helper()
	logs := &testenv.LogBuffer{}
	all := append(redisEnv(t), "WECODEX_SERVER_ADDR=127.0.0.1:0")
	d, err := Start(context.Background(), Options{
		Wecodex: wecodexBin,
		Codex:   codextest.CodexBin(t),
		Config:  filepath.Join(moduleRoot(t), "configs", config),
		Env:     append(all, env...),
		Logs:    logs,
		Script:  script,
	})
	if err != nil {
		t.Fatalf("start demo: %v\nserve log:\n%s", err, logs.String())
	}
	t.Cleanup(func() {
		if err := d.Close(); err != nil {
			t.Errorf("stop demo: %v", err)
		}
		if t.Failed() {
			t.Logf("serve log:\n%s", logs.String())
		}
	})
	return d
}

// chromium is Debian's chromium, or $WECODEX_TEST_CHROMIUM.
func chromium(t *testing.T) string {
	t.Helper()
	p := os.Getenv(ChromiumEnv)
	if p == "" {
		p = "/usr/bin/chromium"
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("chromium not installed (%v): run `apt-get install -y chromium` (Debian), or set %s", err, ChromiumEnv)
	}
	return p
}

// browser starts a headless Chromium with a fresh profile and returns a tab.
// Every browser action in a test runs within the test's deadline guard.
func browser(t *testing.T) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium(t)),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(760, 900),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	// The first Run starts the browser; it must not carry a timeout.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

// guard bounds one step so a broken page fails the test with a message
// instead of hanging it; it is a deadline, not a speed assertion.
func guard(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, 2*time.Minute)
}

// holdingScript is the demo script with the replies to the requests match
// selects held at gate after the given number of text deltas, so a test
// decides when that turn goes on (or that it never ends by itself).
func holdingScript(match func(req *scriptedmodel.Request) bool, after int, gate *scriptedmodel.Gate) scriptedmodel.Script {
	demo := Script()
	return scriptedmodel.ScriptFunc(func(req *scriptedmodel.Request) (scriptedmodel.Response, error) {
		r, err := demo.Next(req)
		if err == nil && match(req) {
			r = r.WithHold(after, gate)
		}
		return r, err
	})
}

// afterCommand matches the request that gets an ordinary turn's answer.
func afterCommand(req *scriptedmodel.Request) bool {
	return len(req.InputTypes) > 0 && req.InputTypes[len(req.InputTypes)-1] == "function_call_output"
}
