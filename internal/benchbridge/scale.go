package main

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge"
	"github.com/wecodex/wecodex/acpbridge/external"
)

// scaleRun is one bridge process serving n conversations at once.
type scaleRun struct {
	first, done []time.Duration // per conversation, from the prompts' start
	treeCPU     float64
	treeRSSKiB  int64
}

// timedCollector keeps one conversation's answer and when its first answer
// chunk arrived: the first thing Codex sent that a card shows. Other updates
// (a bridge's command list, session info) come at once from some bridges and
// say nothing about Codex's pace.
type timedCollector struct {
	collector
	start time.Time
	once  sync.Once
	first time.Duration
}

func (c *timedCollector) Update(u acp.SessionUpdate) {
	if m := u.AgentMessageChunk; m != nil && m.Content.Text != nil {
		c.once.Do(func() { c.first = time.Since(c.start) })
	}
	c.collector.Update(u)
}

// measureScale runs n conversations at once on one fresh bridge process,
// each answered in full and checked byte for byte.
func measureScale(b *bridge, workspace, answer string, n int) (scaleRun, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	agent, err := external.New(ctx, external.Options{Command: b.command, Env: b.env, Log: logger()})
	if err != nil {
		return scaleRun{}, err
	}
	defer agent.Close()
	ids := make([]acp.SessionId, n)
	for i := range ids {
		if ids[i], err = agent.NewSession(ctx, workspace); err != nil {
			return scaleRun{}, fmt.Errorf("session %d: %w", i+1, err)
		}
	}
	rss := sampleRSS(agent.PID(), 10*time.Millisecond)
	defer rss.stop()
	run := scaleRun{first: make([]time.Duration, n), done: make([]time.Duration, n)}
	errs := make([]error, n)
	start := time.Now()
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got := &timedCollector{start: start}
			if _, err := agent.Prompt(ctx, id, acpbridge.TextPrompt("Write the long answer."), got); err != nil {
				errs[i] = err
				return
			}
			run.done[i], run.first[i] = time.Since(start), got.first
			if text := got.answer.String(); text != answer {
				errs[i] = fmt.Errorf("conversation %d: answer differs: got %d bytes, want %d (first difference at byte %d)",
					i+1, len(text), len(answer), firstDiff(text, answer))
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return scaleRun{}, err
		}
	}
	run.treeCPU, run.treeRSSKiB = treeCPU(agent.PID()), rss.stop()
	return run, nil
}

// scale runs every bridge at each N, alternating the order per N, and prints
// time to first update and to finish (p50/p99 over the conversations) and
// the tree's CPU and peak RSS per conversation.
func scale(all []*bridge, workspace, answer string, ns []int) error {
	fmt.Printf("\nscale: conversations at once on one bridge process, %d-byte answer each\n", len(answer))
	fmt.Printf("%-20s %3s  %-17s %-17s %-14s %s\n", "bridge", "N", "first p50/p99 s", "finish p50/p99 s", "cpu/conv s", "peak rss/conv MiB")
	for k, n := range ns {
		order := append(all[k%len(all):len(all):len(all)], all[:k%len(all)]...)
		for _, b := range order {
			r, err := measureScale(b, workspace, answer, n)
			if err != nil {
				return fmt.Errorf("%s, N=%d: %w", b.name, n, err)
			}
			fmt.Printf("%-20s %3d  %6.2f / %-8.2f %6.2f / %-8.2f %-14.3f %.1f\n", b.name, n,
				pct(r.first, 50), pct(r.first, 99), pct(r.done, 50), pct(r.done, 99),
				r.treeCPU/float64(n), float64(r.treeRSSKiB)/1024/float64(n))
		}
	}
	return nil
}

// pct is the p-th percentile (nearest rank) in seconds.
func pct(d []time.Duration, p int) float64 {
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
			return nil, fmt.Errorf("-scale: %q is not a positive number", f)
		}
		out = append(out, n)
	}
	return out, nil
}
