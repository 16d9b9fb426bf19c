// Command benchscale measures what users feel at load, through the real
// channels: N conversations at once on one `wecodex serve` replica (the
// real Codex on the scripted model, a real Redis), from WeCom's callback to
// the first frame showing Codex's progress and to the finished card.
//
//   - webhook: the callback is POSTed by internal/wecomtest's simulator,
//     which then pulls refreshes every -refresh (the playground's cadence),
//     so a frame shows when the next refresh after it is answered;
//   - long connection: the callback is pushed by internal/wecomtest's
//     long-connection server, and a frame shows when it reaches that
//     server's socket.
//
// It prints p50/p99 per N per channel and the load average while measured.
// Run it with `make bench-scale`.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/wecodex/wecodex/internal/playground"
	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/serveproc"
)

// Issue 28's goals at N = 8 on one 2-core replica.
const (
	goalN        = 8
	goalLongConn = time.Second
	goalWebhook  = 1300 * time.Millisecond
)

type options struct {
	bin, codex, redis string
	ns                []int
	deltas            int
	refresh           time.Duration
	channels          string
}

func main() {
	var o options
	var ns string
	flag.StringVar(&o.bin, "wecodex", "bin/wecodex", "the wecodex binary")
	flag.StringVar(&o.codex, "codex", ".tools/codex/node_modules/.bin/codex", "the codex serve runs")
	flag.StringVar(&o.redis, "redis", "", "Redis address (default: REDIS_URL's, else 127.0.0.1:6379)")
	flag.StringVar(&ns, "n", "1,4,8,16", "conversation counts to run at once")
	flag.IntVar(&o.deltas, "deltas", 2000, "deltas in each scripted answer")
	flag.DurationVar(&o.refresh, "refresh", playground.DefaultRefreshEvery, "the webhook simulator's refresh cadence")
	flag.StringVar(&o.channels, "channels", "webhook,longconn", "channels to measure")
	flag.Parse()
	var err error
	for _, p := range []*string{&o.bin, &o.codex} {
		if *p, err = filepath.Abs(*p); err != nil {
			break
		}
	}
	if o.ns, err = parseInts(ns); err == nil {
		err = run(o)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchscale:", err)
		os.Exit(1)
	}
}

// result is one N on one channel: per conversation, from the callback.
type result struct {
	first, done []time.Duration
	// started is callback → the replica's "turn started" log line, logged
	// once the Codex session is open: intake, queue, scheduler and
	// thread/start; the rest of first is the prompt to Codex's first
	// event and its frame.
	started []time.Duration
	load    string // load average after the run
}

func run(o options) error {
	answer, deltas := scriptedAnswer(o.deltas)
	model := sm.New(sm.ScriptFunc(func(*sm.Request) (sm.Response, error) {
		return sm.Reply(sm.MessageDeltas(sm.PhaseFinalAnswer, deltas...)), nil
	}))
	url, err := model.Start()
	if err != nil {
		return fmt.Errorf("start scripted model: %w", err)
	}
	defer model.Close()
	dir, err := os.MkdirTemp("", "wecodex-benchscale-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	codex, err := serveproc.NewCodex(dir, url)
	if err != nil {
		return err
	}
	env := benchEnv{o: o, dir: dir, codex: codex, answer: answer, redis: redisAddr(o.redis)}
	fmt.Printf("bench-scale: N conversations at once on one wecodex serve replica, real Codex on the scripted model (%d deltas, %d bytes each), Redis at %s\n",
		o.deltas, len(answer), env.redis)
	fmt.Printf("first = callback → first frame showing Codex's answer; finish = callback → finished card; webhook frames pulled every %s\n", o.refresh)
	fmt.Printf("load average before: %s\n", serveproc.LoadAvg())
	results := map[string]map[int]result{}
	for _, ch := range strings.Split(o.channels, ",") {
		r, err := env.channel(ch)
		if err != nil {
			return fmt.Errorf("%s: %w", ch, err)
		}
		results[ch] = r
	}
	fmt.Printf("\n%-9s %3s  %-19s %-19s %-19s %s\n", "channel", "N", "first p50 / p99 s", "finish p50 / p99 s", "started p50 / p99 s", "load average after")
	for _, ch := range strings.Split(o.channels, ",") {
		for _, n := range o.ns {
			r := results[ch][n]
			fmt.Printf("%-9s %3d  %6.2f / %-10.2f %6.2f / %-10.2f %6.2f / %-10.2f %s\n", ch, n,
				pct(r.first, 50), pct(r.first, 99), pct(r.done, 50), pct(r.done, 99), pct(r.started, 50), pct(r.started, 99), r.load)
		}
	}
	fmt.Println("started = callback → the replica's \"turn started\" log line (intake, queue, scheduler, Codex's thread/start); first − started is turn/start to Codex's first event, and its frame")
	for _, ch := range strings.Split(o.channels, ",") {
		r, ok := results[ch][goalN]
		if !ok {
			continue
		}
		goal := map[string]time.Duration{"webhook": goalWebhook, "longconn": goalLongConn}[ch]
		verdict := "PASS"
		if p := pct(r.first, 99); p >= goal.Seconds() {
			verdict = "MISS"
		}
		fmt.Printf("goal %s: first progress p99 < %s at N = %d: %.2f s, %s\n", ch, goal, goalN, pct(r.first, 99), verdict)
	}
	return nil
}

// benchEnv is what every channel's runs share.
type benchEnv struct {
	o      options
	dir    string
	codex  serveproc.Codex
	answer string
	redis  string
}

func (e benchEnv) channel(ch string) (map[int]result, error) {
	switch ch {
	case "webhook":
		return e.webhook()
	case "longconn":
		return e.longConn()
	}
	return nil, fmt.Errorf("unknown channel %q (webhook, longconn)", ch)
}

func (e benchEnv) config(name, wsURL string) serveproc.Config {
	return serveproc.Config{
		RedisAddrs: e.redis, Prefix: "wecodex-benchscale:" + strconv.FormatInt(time.Now().UnixNano(), 36) + ":",
		Codex: e.o.codex, Workspace: filepath.Join(e.dir, name, "workspaces"), WSURL: wsURL,
	}
}

// users are n fresh senders for one run, so each conversation starts a
// new Codex thread as a new user's does.
func users(tag string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s-%02d", tag, i)
	}
	return out
}

func redisAddr(flagged string) string {
	if flagged != "" {
		return flagged
	}
	if u := os.Getenv("REDIS_URL"); u != "" {
		return strings.TrimSuffix(strings.TrimPrefix(u, "redis://"), "/")
	}
	return "127.0.0.1:6379"
}

func scriptedAnswer(n int) (string, []string) {
	deltas := make([]string, n)
	for i := range deltas {
		deltas[i] = fmt.Sprintf("d%05d ", i)
	}
	return strings.Join(deltas, ""), deltas
}

// firstWords is what a frame shows once Codex's answer has begun.
const firstWords = "d00000"

// pct is the p-th percentile (nearest rank) in seconds.
func pct(d []time.Duration, p int) float64 {
	if len(d) == 0 {
		return 0
	}
	v := append([]time.Duration(nil), d...)
	sort.Slice(v, func(i, j int) bool { return v[i] < v[j] })
	i := (p*len(v) + 99) / 100
	return v[max(i-1, 0)].Seconds()
}

func parseInts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("-n: %q is not a positive number", f)
		}
		out = append(out, n)
	}
	return out, nil
}

// within bounds one N's run.
func within() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), 10*time.Minute)
}
