package longconn

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/wecodex/wecodex/internal/testenv"
	"github.com/wecodex/wecodex/internal/wecomtest"
	"github.com/wecodex/wecodex/store"
)

// The test binary doubles as a replica process that the kill test can
// kill -9: with these variables set, TestMain runs one Connection instead
// of the tests.
const (
	envReplicaURL    = "WECODEX_LONGCONN_REPLICA_URL"
	envReplicaPrefix = "WECODEX_LONGCONN_REPLICA_PREFIX"
	envReplicaID     = "WECODEX_LONGCONN_REPLICA_ID"
)

func TestMain(m *testing.M) {
	if url := os.Getenv(envReplicaURL); url != "" {
		os.Exit(runReplicaProcess(url, os.Getenv(envReplicaPrefix), os.Getenv(envReplicaID)))
	}
	os.Exit(m.Run())
}

func runReplicaProcess(url, prefix, id string) int {
	opt, err := redis.ParseURL(testenv.RedisURL())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ctx := context.Background()
	st, err := store.Open(ctx, store.Options{Addrs: []string{opt.Addr}, Password: opt.Password, DB: opt.DB, Prefix: prefix},
		slog.New(slog.DiscardHandler))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	c, err := New(Config{
		Client:  Options{URL: url, BotID: testBot, Secret: testSecret, BackoffMin: 5 * time.Millisecond},
		Replica: id, Store: store.NewLongConn(st), HolderTTL: 900 * time.Millisecond, RenewEvery: 300 * time.Millisecond,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	_ = c.Run(ctx) // until killed
	return 0
}

// startReplicaProcess runs replica A as a process of its own (this test
// binary, see TestMain) and waits until it has subscribed; the test kills it.
func startReplicaProcess(t *testing.T, srv *wecomtest.LongConnServer, prefix string) *exec.Cmd {
	t.Helper()
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), envReplicaURL+"="+srv.URL(), envReplicaPrefix+"="+prefix, envReplicaID+"=A")
	child.Stderr = os.Stderr
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = child.Process.Kill(); _ = child.Wait() })
	if _, err := srv.Wait(waitCtx(t), func(r wecomtest.Record) bool { return r.Kind == wecomtest.KindAck && r.Errcode == 0 }); err != nil {
		t.Fatal(err)
	}
	return child
}

// TestHolderKilledStandbyTakesOver: the replica holding the connection is a
// separate process, killed with SIGKILL mid-stream: the in-process standby
// subscribes within seconds, re-pushes the running stream, and finishes it;
// never were two connections subscribed, and nobody was kicked.
func TestHolderKilledStandbyTakesOver(t *testing.T) {
	srv := wecomtest.NewLongConnServer(t, wecomtest.LongConnOptions{BotID: testBot, Secret: testSecret, KickCloseDelay: time.Hour})
	prefix := testenv.Prefix(t, "longconn-kill")
	child := startReplicaProcess(t, srv, prefix)
	ctx := waitCtx(t)
	st := testenv.OpenStores(t, prefix)
	if r, _, err := st.Holder(ctx, testBot); err != nil || r != "A" {
		t.Fatalf("holder = %q, %v; want the child A", r, err)
	}
	b := startReplica(t, srv, prefix, "B")

	reqID, err := srv.PushMessage(wecomtest.LongConnMessage{UserID: "zhangsan", Text: "q"})
	if err != nil {
		t.Fatal(err)
	}
	s := Snapshot{ReqID: reqID, StreamID: "st", ChatID: "zhangsan", Seq: 1, Content: "<think>step 1</think>"}
	if shown, err := b.conn.Present(ctx, s); err != nil || !shown {
		t.Fatalf("present: shown %v, %v", shown, err)
	}
	first, err := srv.Wait(ctx, func(r wecomtest.Record) bool { return r.Kind == wecomtest.KindAck && r.ReqID == reqID })
	if err != nil || first.Errcode != 0 {
		t.Fatalf("frame pushed by the child = %+v, %v", first, err)
	}
	oldConn := srv.Subscribed()
	if err := child.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = child.Wait()

	frames, err := srv.WaitCount(ctx, 2, func(r wecomtest.Record) bool { return r.Kind == wecomtest.KindRequest && r.ReqID == reqID })
	if err != nil {
		t.Fatal(err)
	}
	if frames[1].Conn == oldConn || frames[1].Stream().Content != "<think>step 1</think>" {
		t.Fatalf("after the kill: frame %q on conn %d, want the running stream re-pushed on a new connection", frames[1].Stream().Content, frames[1].Conn)
	}
	fin := s
	fin.Seq, fin.Content, fin.Finish, fin.Body, fin.BodyEnd = 2, "<think>step 1</think>answer", true, "answer", 6
	if shown, err := b.conn.Present(ctx, fin); err != nil || !shown {
		t.Fatalf("present: shown %v, %v", shown, err)
	}
	last, err := srv.Wait(ctx, wecomtest.IsFinalStream(reqID))
	if err != nil || last.Errcode != 0 || last.Stream().Content != "<think>step 1</think>answer" {
		t.Fatalf("final frame = %+v, %v", last, err)
	}
	if r, _, _ := st.Holder(ctx, testBot); r != "B" {
		t.Fatalf("holder after the kill = %q, want B", r)
	}
	if n, k := srv.MaxSubscribed(), srv.Kicks(); n != 1 || k != 0 {
		t.Fatalf("max subscribed %d, kicks %d; want 1, 0", n, k)
	}
}
