// Package testenv is what tests share to run against real parts: the real
// Redis at REDIS_URL under a key prefix of the test's own, the wecodex binary
// built once per test binary, and a log buffer that request goroutines may
// write to while the test reads it.
package testenv

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/wecodex/wecodex/store"
)

// DefaultRedisURL is the Redis tests use when REDIS_URL is unset: the one
// that runs on a developer machine and in CI.
const DefaultRedisURL = "redis://127.0.0.1:6379"

// RedisURL is $REDIS_URL, or DefaultRedisURL.
func RedisURL() string {
	if u := os.Getenv("REDIS_URL"); u != "" {
		return u
	}
	return DefaultRedisURL
}

// RedisOptions parses RedisURL; a malformed URL fails the test.
func RedisOptions(t testing.TB) *redis.Options {
	t.Helper()
	u := RedisURL()
	opt, err := redis.ParseURL(u)
	if err != nil {
		t.Fatalf("REDIS_URL %q: %v", u, err)
	}
	return opt
}

// Redis is a client of the real Redis, closed when the test ends. It fails
// the test at once when no Redis answers, so a missing server reads as such
// rather than as a confusing failure later.
func Redis(t testing.TB) *redis.Client {
	t.Helper()
	c := redis.NewClient(RedisOptions(t))
	t.Cleanup(func() { _ = c.Close() })
	if err := c.Ping(context.Background()).Err(); err != nil {
		t.Fatalf("no Redis answers at %s (set REDIS_URL or start redis-server): %v", RedisURL(), err)
	}
	return c
}

// Prefix is a key prefix of the test's own, "wecodex-test:<name>:<random>:",
// so tests running at once (and replicas within a test) never see each
// other's keys. Every key under it is deleted when the test ends, after the
// cleanups registered later (such as closing stores on it) have run.
func Prefix(t testing.TB, name string) string {
	t.Helper()
	var b [6]byte
	_, _ = rand.Read(b[:])
	prefix := "wecodex-test:" + name + ":" + hex.EncodeToString(b[:]) + ":"
	c := Redis(t)
	t.Cleanup(func() {
		ctx := context.Background()
		iter := c.Scan(ctx, 0, prefix+"*", 500).Iterator()
		for iter.Next(ctx) {
			c.Del(ctx, iter.Val())
		}
		if err := iter.Err(); err != nil {
			t.Errorf("clean up Redis keys %s*: %v", prefix, err)
		}
	})
	return prefix
}

// OpenStore opens the real Redis as a store under prefix (from Prefix) and
// closes it when the test ends. Several stores on one prefix act as replicas
// sharing one Redis.
func OpenStore(t testing.TB, prefix string) *store.DB {
	t.Helper()
	opt := RedisOptions(t)
	ctx := context.Background()
	s, err := store.Open(ctx, store.Options{Addrs: []string{opt.Addr}, Password: opt.Password, DB: opt.DB, Prefix: prefix},
		slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	if err := s.Ping(ctx); err != nil {
		t.Fatalf("no Redis answers at %s (set REDIS_URL or start redis-server): %v", RedisURL(), err)
	}
	return s
}

// BuildWecodex builds cmd/wecodex into dir, with the lean
// cmd/wecodex-codex-acp beside it stamped with the same build id as `make
// build` does (so `wecodex codex-acp` runs the lean binary, as installed),
// and returns wecodex's path. It is meant for TestMain, so a package's tests
// share one build; the error carries the compiler's output.
func BuildWecodex(dir string) (string, error) {
	id := rand.Text()
	return BuildWecodexWithLean(dir, id, id)
}

// BuildWecodexWithLean is BuildWecodex with wecodex stamped with build id
// id and the lean binary with leanID, or left out when leanID is "": a test
// of what wecodex does with a stale lean binary beside it, or with none.
func BuildWecodexWithLean(dir, id, leanID string) (string, error) {
	bin := filepath.Join(dir, "wecodex")
	if err := goBuild(bin, "cmd/wecodex", id); err != nil {
		return "", err
	}
	if leanID != "" {
		if err := goBuild(filepath.Join(dir, "wecodex-codex-acp"), "cmd/wecodex-codex-acp", leanID); err != nil {
			return "", err
		}
	}
	return bin, nil
}

// goBuild builds the module's package pkg into bin, stamped with build id.
func goBuild(bin, pkg, id string) error {
	cmd := exec.Command("go", "build", "-ldflags", "-X github.com/wecodex/wecodex/cli.BuildID="+id, "-o", bin, "github.com/wecodex/wecodex/"+pkg)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %w\n%s", pkg, err, out)
	}
	return nil
}

// RunWithWecodex is a TestMain body: it builds cmd/wecodex once into a temp
// dir, stores its path in *bin, runs the package's tests and exits with their
// code, removing the build afterwards.
func RunWithWecodex(m *testing.M, bin *string) {
	dir, err := os.MkdirTemp("", "wecodex-test-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if *bin, err = BuildWecodex(dir); err != nil {
		fmt.Fprintln(os.Stderr, "build wecodex:", err)
		os.Exit(1)
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// LogBuffer collects log output written from other goroutines (request
// handlers, a child process's pipes) for the test to read.
type LogBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *LogBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// String is everything written so far.
func (l *LogBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
