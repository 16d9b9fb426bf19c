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

// openRealStore opens the stores on the real Redis at REDIS_URL (default
// redis://127.0.0.1:6379) under a prefix of its own, and deletes every key
// under that prefix when the test ends.
func openRealStore(t testing.TB) *stores {
	t.Helper()
	url := os.Getenv("REDIS_URL")
	if url == "" {
		url = "redis://127.0.0.1:6379"
	}
	opt, err := redis.ParseURL(url)
	if err != nil {
		t.Fatalf("REDIS_URL %q: %v", url, err)
	}
	s := openStoreWithOwnPrefix(t, Options{Addrs: []string{opt.Addr}, Password: opt.Password, DB: opt.DB})
	if err := s.Ping(context.Background()); err != nil {
		t.Fatalf("no Redis answers at %s (set REDIS_URL or start redis-server): %v", url, err)
	}
	return s
}

// openStoreWithOwnPrefix opens the stores under a random prefix and deletes
// every key under it when the test ends.
func openStoreWithOwnPrefix(t testing.TB, o Options) *stores {
	t.Helper()
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	prefix := "wecodex-test:" + hex.EncodeToString(b[:]) + ":"
	o.Prefix = prefix
	db, err := Open(context.Background(), o, discardLog())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		deleteByPrefix(t, db.client, prefix)
		if err := db.Close(); err != nil {
			t.Error(err)
		}
	})
	return allOf(db)
}

// deleteByPrefix deletes the keys under prefix, on every master of a Cluster.
func deleteByPrefix(t testing.TB, c redis.UniversalClient, prefix string) {
	t.Helper()
	if cc, ok := c.(*redis.ClusterClient); ok {
		err := cc.ForEachMaster(context.Background(), func(ctx context.Context, m *redis.Client) error {
			deleteByPrefix(t, m, prefix)
			return nil
		})
		if err != nil {
			t.Errorf("clean up %s* on the cluster: %v", prefix, err)
		}
		return
	}
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
