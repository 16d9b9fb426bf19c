package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"log/slog"
	"os"
	"testing"

	"github.com/redis/go-redis/v9"
)

// openRealStore opens a Store on the real Redis at REDIS_URL (default
// redis://127.0.0.1:6379) under a prefix of its own, and deletes every key
// under that prefix when the test ends.
func openRealStore(t testing.TB) *Store {
	t.Helper()
	url := os.Getenv("REDIS_URL")
	if url == "" {
		url = "redis://127.0.0.1:6379"
	}
	opt, err := redis.ParseURL(url)
	if err != nil {
		t.Fatalf("REDIS_URL %q: %v", url, err)
	}
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	prefix := "wecodex-test:" + hex.EncodeToString(b[:]) + ":"
	ctx := context.Background()
	s, err := Open(ctx, Options{Addrs: []string{opt.Addr}, Password: opt.Password, DB: opt.DB, Prefix: prefix}, discardLog())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Ping(ctx); err != nil {
		t.Fatalf("no Redis answers at %s (set REDIS_URL or start redis-server): %v", url, err)
	}
	t.Cleanup(func() {
		deleteByPrefix(t, s.Client(), prefix)
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	return s
}

func deleteByPrefix(t testing.TB, c redis.UniversalClient, prefix string) {
	t.Helper()
	ctx := context.Background()
	iter := c.Scan(ctx, 0, prefix+"*", 100).Iterator()
	for iter.Next(ctx) {
		if err := c.Del(ctx, iter.Val()).Err(); err != nil {
			t.Errorf("clean up %s: %v", iter.Val(), err)
		}
	}
	if err := iter.Err(); err != nil {
		t.Errorf("clean up %s*: %v", prefix, err)
	}
}

func discardLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
