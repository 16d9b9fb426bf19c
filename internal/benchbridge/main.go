// Command benchbridge measures an ACP bridge's own cost: it runs `wecodex
// codex-acp` and the published @agentclientprotocol/codex-acp side by side on
// the same real Codex and the same scripted answer of many deltas, and reports
// each bridge process's own CPU seconds and peak RSS, and the whole process
// tree's (bridge + Codex: CPU seconds and the peak of the summed RSS, PSS
// and USS), medians of alternating runs, every answer byte checked. The
// yardstick is a bare tree: the same native app-server driven by the
// smallest client (bare.go), whose tree the wecodex tree is divided by.
//
// Run it with `make bench-bridge`.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/wecodex/wecodex/acpbridge"
	"github.com/wecodex/wecodex/acpbridge/external"
	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
)

func main() {
	var f flags
	flag.StringVar(&f.wecodex, "wecodex", "bin/wecodex", "the wecodex binary")
	flag.StringVar(&f.codexACP, "codex-acp", ".tools/codex-acp/node_modules/.bin/codex-acp", "the published codex-acp")
	flag.StringVar(&f.zed, "zed-codex-acp", "", "zed's Rust codex-acp binary, measured too when set (it embeds Codex: its figures include Codex's)")
	flag.StringVar(&f.codex, "codex", ".tools/codex/node_modules/.bin/codex", "the codex both bridges run")
	flag.IntVar(&f.deltas, "deltas", 20000, "deltas in the scripted answer")
	flag.IntVar(&f.runs, "runs", 5, "runs of each bridge, alternating")
	flag.StringVar(&f.cpuProfile, "cpuprofile", "", "write this process's CPU profile (the wecodex client and the scripted model) to the file")
	flag.StringVar(&f.only, "only", "", "measure only the bridges whose name contains this")
	flag.StringVar(&f.scale, "scale", "", "conversation counts to run at once on one bridge, e.g. 1,4,8,16 (empty: none)")
	flag.IntVar(&f.scaleDeltas, "scale-deltas", 2000, "deltas in each answer of the scale runs")
	flag.StringVar(&f.redis, "redis", redisFromEnv(), "Redis address for the `wecodex serve` row (empty: no serve row)")
	flag.StringVar(&f.bareConfig, "bare-config", "", "app-server settings for the bare rows, space-separated `key=value`s, each passed as -c (an A/B of a setting: run with and without)")
	flag.Parse()
	if f.cpuProfile != "" {
		stop, err := startProfile(f.cpuProfile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "benchbridge:", err)
			os.Exit(1)
		}
		defer stop()
	}
	if err := run(f); err != nil {
		fmt.Fprintln(os.Stderr, "benchbridge:", err)
		os.Exit(1)
	}
}

type flags struct {
	wecodex, codexACP, codex, zed string
	bareConfig                    string
	deltas, runs                  int
	cpuProfile, only              string
	scale                         string
	scaleDeltas                   int
	redis                         string
}

// bridge is one ACP agent under test.
type bridge struct {
	name    string
	command []string
	env     map[string]string
	// bare: command[0] is the codex launcher, whose native app-server this
	// process drives itself (bare.go) instead of through ACP.
	bare bool
	// serveSandbox: the bare client sends serve's thread/start
	// (servesandbox.go) instead of the plain one.
	serveSandbox bool
	// serve: the bridge is `wecodex serve`'s own (serve.go).
	serve   *serveSetup
	samples []sample
}

func run(f flags) error {
	ns, err := parseInts(f.scale)
	if err != nil {
		return err
	}
	answer, deltas := scriptedAnswer(f.deltas)
	// The scale runs answer with a shorter text; the script reads the
	// current one.
	var current atomic.Pointer[[]string]
	current.Store(&deltas)
	model := sm.New(sm.ScriptFunc(func(*sm.Request) (sm.Response, error) {
		return sm.Reply(sm.MessageDeltas(sm.PhaseFinalAnswer, (*current.Load())...)), nil
	}))
	url, err := model.Start()
	if err != nil {
		return fmt.Errorf("start scripted model: %w", err)
	}
	defer model.Close()

	dir, err := os.MkdirTemp("", "wecodex-benchbridge-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	home, workspace := filepath.Join(dir, "codex-home"), filepath.Join(dir, "workspace")
	// Codex snapshots its login shell once per thread (bash -l, sourcing
	// HOME's profile). With the operator's profile that snapshot measures
	// this machine (a pyenv init costs ~0.5 s a thread here), not a bridge;
	// an empty HOME is what a service user's is, and the same for every bridge.
	shellHome := filepath.Join(dir, "home")
	for _, d := range []string{workspace, shellHome} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return err
		}
	}
	if err := sm.WriteCodexHome(home, url, sm.HomeOptions{}); err != nil {
		return err
	}
	env := map[string]string{}
	for _, kv := range append(sm.Env(home), "HOME="+shellHome) {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	codex, err := filepath.Abs(f.codex)
	if err != nil {
		return err
	}
	ours := &bridge{name: "wecodex codex-acp", command: []string{f.wecodex, "codex-acp"},
		env: with(env, "WECODEX_AGENT_CODEX_BIN", codex, "WECODEX_AGENT_CODEX_APPROVAL_POLICY", "never")}
	theirs := &bridge{name: "codex-acp 2.6.0", command: []string{f.codexACP},
		env: with(env, "CODEX_PATH", codex, "CODEX_ACP_PROMPT_SUGGESTIONS", "false")}

	bareCommand := append([]string{codex}, configArgs(f.bareConfig)...)
	bare := &bridge{name: "bare app-server", command: bareCommand, env: env, bare: true}

	all := []*bridge{ours, bare, theirs}
	var served, bareServe *bridge
	if f.redis != "" {
		bin, err := filepath.Abs(f.wecodex)
		if err != nil {
			return err
		}
		served = &bridge{name: "wecodex serve", env: env, serve: &serveSetup{bin: bin, codex: codex, redis: f.redis, dir: dir}}
		bareServe = &bridge{name: "bare app-server, serve's sandbox", command: bareCommand, env: env, bare: true, serveSandbox: true}
		all = []*bridge{ours, served, bare, bareServe, theirs}
	} else {
		fmt.Println("no Redis (-redis, REDIS_URL): the wecodex serve row is left out")
	}
	if f.zed != "" {
		all = append(all, &bridge{name: "zed codex-acp 0.16.0", command: []string{f.zed}, env: env})
	}
	all = slices.DeleteFunc(all, func(b *bridge) bool { return !strings.Contains(b.name, f.only) })
	if len(all) == 0 {
		return fmt.Errorf("-only %q matches no bridge", f.only)
	}
	fmt.Printf("answer: %d deltas, %d bytes; %d runs each, alternating\n", f.deltas, len(answer), f.runs)
	for i := 0; i < f.runs; i++ {
		order := append(all[i%len(all):len(all):len(all)], all[:i%len(all)]...)
		for _, b := range order {
			s, err := measure(b, workspace, answer)
			if err != nil {
				return fmt.Errorf("%s, run %d: %w", b.name, i+1, err)
			}
			b.samples = append(b.samples, s)
			fmt.Printf("run %d %-20s bridge cpu %.3fs rss %6.1f MiB | tree cpu %.3fs peak rss %6.1f pss %6.1f uss %6.1f anon %6.1f MiB | wall %.2fs  client cpu %.3fs\n",
				i+1, b.name, s.cpu, float64(s.rssKiB)/1024, s.treeCPU, float64(s.treeRSSKiB)/1024, mib(s.treeMem.pss), mib(s.treeMem.uss), mib(s.treeMem.anon), s.wall.Seconds(), s.client)
			for _, m := range s.members {
				fmt.Printf("      %s\n", m)
			}
		}
	}
	if slices.Contains(all, ours) && slices.Contains(all, theirs) {
		report(ours, theirs)
	}
	// serve is divided by the bare tree running its sandbox first (what
	// wecodex adds), then by the plain one (what serve costs in all).
	for _, p := range [][2]*bridge{{served, bareServe}, {ours, bare}, {served, bare}} {
		if p[0] != nil && p[1] != nil && slices.Contains(all, p[0]) && slices.Contains(all, p[1]) {
			reportBare(p[0], p[1])
		}
	}
	for _, b := range all {
		fmt.Printf("%-20s median: bridge cpu %.3fs, peak rss %.1f MiB; whole tree cpu %.3fs, peak summed rss %.1f MiB (pss %.1f, uss %.1f, anon %.1f); client cpu %.3fs\n",
			b.name, median(b.samples, cpuOf), median(b.samples, rssOf)/1024,
			median(b.samples, treeCPUOf), median(b.samples, treeRSSOf)/1024,
			median(b.samples, treePSSOf)/1024, median(b.samples, treeUSSOf)/1024, median(b.samples, treeAnonOf)/1024, median(b.samples, clientOf))
	}
	if len(ns) == 0 {
		return nil
	}
	scaleAnswer, scaleDeltas := scriptedAnswer(f.scaleDeltas)
	current.Store(&scaleDeltas)
	// The scale runs compare ACP agents; the bare client runs one turn.
	return scale(slices.DeleteFunc(all, func(b *bridge) bool { return b.bare || b.serve != nil }), workspace, scaleAnswer, ns)
}

// startProfile profiles this process's CPU into path until stop.
func startProfile(path string) (stop func(), err error) {
	out, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	if err := pprof.StartCPUProfile(out); err != nil {
		out.Close()
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	return func() { pprof.StopCPUProfile(); out.Close() }, nil
}

// redisFromEnv is REDIS_URL's address (scripts/with-redis.sh sets it).
func redisFromEnv() string {
	u := os.Getenv("REDIS_URL")
	return strings.TrimSuffix(strings.TrimPrefix(u, "redis://"), "/")
}

func with(base map[string]string, kv ...string) map[string]string {
	m := make(map[string]string, len(base)+len(kv)/2)
	for k, v := range base {
		m[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

// scriptedAnswer returns an answer of n distinct deltas, so a lost, repeated
// or reordered delta shows in the comparison.
func scriptedAnswer(n int) (string, []string) {
	deltas := make([]string, n)
	for i := range deltas {
		deltas[i] = fmt.Sprintf("d%05d ", i)
	}
	return strings.Join(deltas, ""), deltas
}

// measure runs one turn on a fresh bridge process and reads its own CPU time
// and peak RSS from /proc just before stopping it.
func measure(b *bridge, workspace, answer string) (sample, error) {
	if b.bare {
		return measureBare(b, workspace, answer)
	}
	if b.serve != nil {
		return measureServe(b, *b.serve, answer)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	start := time.Now()
	agent, err := external.New(ctx, external.Options{
		Command: b.command, Env: b.env,
		Log: logger(),
	})
	if err != nil {
		return sample{}, err
	}
	defer agent.Close()
	id, err := agent.NewSession(ctx, workspace)
	if err != nil {
		return sample{}, err
	}
	rss := sampleRSS(agent.PID(), 10*time.Millisecond)
	defer rss.stop()
	var got collector
	before := selfCPU()
	if _, err := agent.Prompt(ctx, id, acpbridge.TextPrompt("Write the long answer."), &got); err != nil {
		return sample{}, err
	}
	client := selfCPU() - before
	s, err := readProc(agent.PID())
	if err != nil {
		return sample{}, err
	}
	s.client = client
	s.treeCPU, s.members, s.treeMem, s.treeRSSKiB = treeCPU(agent.PID()), treeMembers(agent.PID()), rss.stopMem(agent.PID()), rss.stop()
	s.wall = time.Since(start)
	return s, sameAnswer(got.answer.String(), answer)
}

// measureBare is measure for the bare tree: the app-server alone, this
// process its client.
func measureBare(b *bridge, workspace, answer string) (sample, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	start := time.Now()
	threadStart := plainThread(workspace)
	if b.serveSandbox {
		dir, err := os.MkdirTemp(filepath.Dir(workspace), "bare-serve-")
		if err != nil {
			return sample{}, err
		}
		l, err := newServeLayout(dir, b.command[0], "single:bench", b.env)
		if err != nil {
			return sample{}, err
		}
		if threadStart, err = serveThread(l); err != nil {
			return sample{}, err
		}
	}
	app, err := startBare(ctx, b.command[0], b.command[1:], b.env)
	if err != nil {
		return sample{}, err
	}
	defer app.close()
	pid := app.pid()
	rss := sampleRSS(pid, 10*time.Millisecond)
	defer rss.stop()
	before := selfCPU()
	text, err := app.turnWith(ctx, threadStart, "Write the long answer.")
	if err != nil {
		return sample{}, err
	}
	client := selfCPU() - before
	s, err := readProc(pid)
	if err != nil {
		return sample{}, err
	}
	s.client = client
	s.treeCPU, s.members, s.treeMem, s.treeRSSKiB = treeCPU(pid), treeMembers(pid), rss.stopMem(pid), rss.stop()
	s.wall = time.Since(start)
	return s, sameAnswer(text, answer)
}

func sameAnswer(got, want string) error {
	if got != want {
		return fmt.Errorf("answer differs: got %d bytes, want %d (first difference at byte %d)",
			len(got), len(want), firstDiff(got, want))
	}
	return nil
}

func firstDiff(a, b string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func report(ours, theirs *bridge) {
	oc, tc := median(ours.samples, cpuOf), median(theirs.samples, cpuOf)
	or, tr := median(ours.samples, rssOf), median(theirs.samples, rssOf)
	fmt.Printf("\nmedian              cpu        peak rss\n")
	fmt.Printf("%-18s  %.3fs    %6.1f MiB\n", ours.name, oc, or/1024)
	fmt.Printf("%-18s  %.3fs    %6.1f MiB\n", theirs.name, tc, tr/1024)
	fmt.Printf("ratio (ours/theirs) cpu %.3fx (target <= 0.10x)  peak rss %.3fx (target <= 0.25x)\n", oc/tc, or/tr)
	fmt.Println("both bridges delivered the whole answer in every run")
}

// reportBare divides the wecodex tree by the bare one: what wecodex adds
// to the app-server it runs (issue 28's goal: <= 1.05x CPU, <= 1.10x peak
// RSS).
func reportBare(ours, bare *bridge) {
	ratio := func(f func(sample) float64) float64 { return median(ours.samples, f) / median(bare.samples, f) }
	fmt.Printf("\nwhole tree, %s / %s (medians)\n", ours.name, bare.name)
	fmt.Printf("cpu %.3fx (goal <= 1.05x)  peak rss %.3fx (goal <= 1.10x)  peak pss %.3fx  peak uss %.3fx  peak anon %.3fx\n",
		ratio(treeCPUOf), ratio(treeRSSOf), ratio(treePSSOf), ratio(treeUSSOf), ratio(treeAnonOf))
	fmt.Printf("rss counts shared pages (the codex binary's) whole in every process; pss shares them out among the processes mapping them and uss leaves them out, so both drop while other processes run the same codex; anon (anonymous memory) does not depend on them\n\n")
}

func cpuOf(s sample) float64      { return s.cpu }
func clientOf(s sample) float64   { return s.client }
func rssOf(s sample) float64      { return float64(s.rssKiB) }
func treeCPUOf(s sample) float64  { return s.treeCPU }
func treeRSSOf(s sample) float64  { return float64(s.treeRSSKiB) }
func treePSSOf(s sample) float64  { return float64(s.treeMem.pss) }
func treeUSSOf(s sample) float64  { return float64(s.treeMem.uss) }
func treeAnonOf(s sample) float64 { return float64(s.treeMem.anon) }

func median(samples []sample, f func(sample) float64) float64 {
	v := make([]float64, len(samples))
	for i, s := range samples {
		v[i] = f(s)
	}
	sort.Float64s(v)
	if n := len(v); n%2 == 1 {
		return v[n/2]
	} else {
		return (v[n/2-1] + v[n/2]) / 2
	}
}
