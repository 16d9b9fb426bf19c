package store

import (
	"context"
	"testing"

	"github.com/wecodex/wecodex/internal/redisserver"
)

// startRedisProc starts a redis-server of the test's own (killed when the
// test ends), so a test can kill, restart or freeze it without touching
// the Redis other tests share.
func startRedisProc(t testing.TB) *redisserver.Server {
	t.Helper()
	r := redisserver.New(t)
	r.Start()
	return r
}

// openProcStore opens the stores on r.
func openProcStore(t testing.TB, r *redisserver.Server) *stores {
	t.Helper()
	s, err := Open(context.Background(), Options{Addrs: []string{r.Addr()}, Prefix: "wecodex-test:"}, discardLog())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return allOf(s)
}
