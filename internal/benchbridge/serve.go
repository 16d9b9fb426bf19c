package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/wecodex/wecodex/internal/playground"
	"github.com/wecodex/wecodex/internal/serveproc"
	"github.com/wecodex/wecodex/internal/wecomtest"
)

// The serve row: `wecodex serve` itself, its in-process Codex bridge and
// the app-server it runs, on the same scripted answer, driven without
// WeCom: internal/wecomtest's simulator sends the message to its webhook
// and pulls refreshes at the playground's cadence until the card finishes.
// Its tree is serve + the app-server; Redis, which every replica shares,
// is not in it. The card shows the answer's first 20 KB, the rest goes out
// through response_url (a fake here) and /more, so the check is that the
// card finished with the answer's start and the continuation went out.

// serveSetup is what the serve row needs besides the bridge's env.
type serveSetup struct {
	bin, codex, redis, dir string
}

// serveConfig is the config of the serve row's replica in dir, on Redis
// redis ("" for the embedded store); the serve's-sandbox row makes its
// profile from it too.
func serveConfig(redis, codexBin, dir string) serveproc.Config {
	return serveproc.Config{RedisAddrs: redis, Prefix: "wecodex-benchbridge:" + strconv.FormatInt(time.Now().UnixNano(), 36) + ":",
		Codex: codexBin, Workspace: filepath.Join(dir, "workspaces"),
		// The bare tree's and the codex-acp row's: a sandbox that differs
		// changes what the app-server does, not what wecodex adds.
		Sandbox: "workspace-write"}
}

func measureServe(b *bridge, s serveSetup, answer string) (sample, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	urls, err := wecomtest.NewResponseURLServer(nil)
	if err != nil {
		return sample{}, err
	}
	defer urls.Close()
	start := time.Now()
	dir, err := os.MkdirTemp(s.dir, "serve-")
	if err != nil {
		return sample{}, err
	}
	cfg := serveConfig(s.redis, s.codex, dir)
	var env []string
	for k, v := range b.env {
		env = append(env, k+"="+v)
	}
	p, err := serveproc.Start(ctx, b.name, s.bin, dir, cfg, env)
	if err != nil {
		return sample{}, err
	}
	defer p.Stop(time.Minute)
	pid := p.PID()
	rss := sampleRSS(pid, 10*time.Millisecond)
	defer rss.stop()
	sim, err := wecomtest.New(wecomtest.Config{URL: p.Base + "/wecom/aibot", Token: serveproc.Token,
		EncodingAESKey: serveproc.AESKey, AIBotID: serveproc.BotID, ResponseURLs: urls})
	if err != nil {
		return sample{}, err
	}
	before := selfCPU()
	st, err := sim.Send(ctx, wecomtest.Message{From: "bench", Text: "Write the long answer."})
	if err != nil {
		return sample{}, err
	}
	final, err := sim.Follow(ctx, st.ID, playground.DefaultRefreshEvery, nil)
	if err != nil {
		return sample{}, err
	}
	// The stream frame finishes once the card's 20 KB window is full, well
	// before the turn does (the rest goes out through response_url); the
	// tree is read when the turn has ended, as the other rows' are at
	// turn/completed, or it would leave out most of the answer's cost.
	ended, err := p.WaitLog(ctx, "turn ended")
	if err != nil {
		return sample{}, err
	}
	if ended["outcome"] != "finished" {
		return sample{}, fmt.Errorf("serve's turn ended %v, want finished", ended)
	}
	client := selfCPU() - before
	out, err := readProc(pid)
	if err != nil {
		return sample{}, err
	}
	out.client = client
	out.treeCPU, out.members, out.treeMem, out.treeRSSKiB = treeCPU(pid), treeMembers(pid), rss.stopMem(pid), rss.stop()
	out.wall = time.Since(start)
	return out, servedAnswer(ctx, final, urls, st.Message.MsgID, answer)
}

// servedAnswer checks the finished card began the answer and, when the
// card could not hold all of it, that its continuation went out through
// response_url (what that cannot carry waits for /more, not read here).
func servedAnswer(ctx context.Context, final wecomtest.Frame, urls *wecomtest.ResponseURLServer, msgID, answer string) error {
	head, tail := answer[:min(len(answer), 64)], strings.TrimSpace(answer[max(0, len(answer)-7):])
	if !final.Finish || !strings.Contains(final.Content, head) {
		return fmt.Errorf("serve's card did not finish with the answer: %.300q", final.Content)
	}
	if strings.Contains(final.Content, tail) {
		return nil
	}
	wctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if _, err := urls.Wait(wctx, msgID, 1); err != nil {
		return fmt.Errorf("serve's card ended before the answer's end and nothing came through response_url: %w", err)
	}
	return nil
}
