package main

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/wecodex/wecodex/internal/serveproc"
	"github.com/wecodex/wecodex/internal/testenv"
	"github.com/wecodex/wecodex/internal/wecomtest"
)

// The replicas the benchmarks and load runs start (internal/serveproc) are
// real ones: the webhook one answers WeCom's URL check with the
// credentials the simulator signs with, the long-connection one subscribes
// to the fake server, and each stops on SIGTERM or dies on SIGKILL.
func TestServeprocReplicas(t *testing.T) {
	opt := testenv.RedisOptions(t)
	codex, err := serveproc.NewCodex(t.TempDir(), "http://127.0.0.1:9/v1") // no turn runs
	if err != nil {
		t.Fatal(err)
	}
	cfg := serveproc.Config{RedisAddrs: opt.Addr, RedisPassword: opt.Password, Prefix: testenv.Prefix(t, "serveproc"),
		Codex: "/nonexistent/codex", Workspace: t.TempDir()}
	ctx := within(t, time.Minute)

	web, err := serveproc.Start(ctx, "webhook", wecodexBin, filepath.Join(t.TempDir(), "web"), cfg, codex.Env())
	if err != nil {
		t.Fatal(err)
	}
	sim, err := wecomtest.New(wecomtest.Config{URL: web.Base + "/wecom/aibot", Token: serveproc.Token,
		EncodingAESKey: serveproc.AESKey, AIBotID: serveproc.BotID})
	if err != nil {
		t.Fatal(err)
	}
	if err := sim.VerifyURL(ctx); err != nil {
		t.Fatalf("URL check: %v\n%s", err, web.Tail(20))
	}
	web.Kill()
	select {
	case <-web.Exited():
	default:
		t.Fatal("Kill returned before the process was reaped")
	}

	srv := wecomtest.NewLongConnServer(t, wecomtest.LongConnOptions{BotID: serveproc.BotID, Secret: serveproc.Secret})
	cfg.WSURL = srv.URL()
	lc, err := serveproc.Start(ctx, "longconn", wecodexBin, filepath.Join(t.TempDir(), "lc"), cfg, codex.Env())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lc.WaitLog(ctx, "wecom long connection subscribed"); err != nil {
		t.Fatalf("%v\n%s", err, lc.Tail(20))
	}
	if err := lc.Stop(30 * time.Second); err != nil {
		t.Fatal(err)
	}
}
