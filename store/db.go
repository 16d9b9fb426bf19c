package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
)

// Options says which Redis to use.
type Options struct {
	// Addrs: none for the embedded in-memory Redis; one for a single node (or
	// the Sentinels with MasterName); several for a Cluster.
	Addrs      []string
	MasterName string // Sentinel master name
	Password   string
	DB         int
	Prefix     string // put before every key (redis.prefix)
}

// DB is wecodex's Redis: the client, the keys under the configured prefix,
// and the embedded Redis when no address is configured. It holds no state
// of its own; each purpose's type (Queue, Dedupe, Frames, LongConn, App…)
// is built on it with its New function and meets one consumer's interface.
// Nothing outside the package gets the client.
type DB struct {
	conn
	embedded *miniredis.Miniredis // nil unless Options.Addrs was empty
	log      *slog.Logger
}

// conn is what every purpose's type works with: the client and the keys.
type conn struct {
	client redis.UniversalClient
	keys   Keys
}

// Open connects to the Redis o describes, or starts an embedded in-memory one
// when o.Addrs is empty. An external Redis that does not answer yet is only
// logged: the client reconnects by itself and /readyz reports it.
func Open(ctx context.Context, o Options, log *slog.Logger) (*DB, error) {
	s := &DB{conn: conn{keys: NewKeys(o.Prefix)}, log: log}
	routeRedisLogs(log)
	uo := &redis.UniversalOptions{Addrs: o.Addrs, MasterName: o.MasterName, Password: o.Password, DB: o.DB}
	if len(o.Addrs) == 0 {
		m, password, err := startEmbedded()
		if err != nil {
			return nil, err
		}
		s.embedded = m
		uo = &redis.UniversalOptions{Addrs: []string{m.Addr()}, Password: password}
		log.Warn("redis.addr is empty: using an embedded in-memory Redis; nothing survives a restart and replicas cannot share state",
			"addr", m.Addr())
	}
	// A caller's deadline (a WeCom callback's few seconds) must bound every
	// Redis call, a stalled Redis included; go-redis ignores it otherwise
	// and waits out its own socket timeouts.
	uo.ContextTimeoutEnabled = true
	s.client = redis.NewUniversalClient(uo)
	if err := s.Ping(ctx); err != nil {
		if s.embedded != nil {
			_ = s.Close()
			return nil, fmt.Errorf("open embedded redis: %w", err)
		}
		log.Warn("redis does not answer yet; will keep trying", "addrs", o.Addrs, "err", err)
	}
	return s, nil
}

// startEmbedded starts miniredis on a loopback port behind a random password,
// so other local users cannot read or change the bot's state. TTLs follow the
// wall clock (miniredis freezes them by default, being made for tests), so
// leases lapse and dedupe records expire as they would on a real Redis.
func startEmbedded() (*miniredis.Miniredis, string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, "", fmt.Errorf("embedded redis password: %w", err)
	}
	password := hex.EncodeToString(b[:])
	m := miniredis.NewMiniRedis()
	m.ClockTTL(true)
	m.RequireAuth(password)
	if err := m.StartAddr("127.0.0.1:0"); err != nil {
		return nil, "", fmt.Errorf("start embedded redis: %w", err)
	}
	return m, password, nil
}

// Ping reports whether Redis answers.
func (s *DB) Ping(ctx context.Context) error {
	if err := s.client.Ping(ctx).Err(); err != nil {
		return fmt.Errorf("ping redis: %w", err)
	}
	return nil
}

// Close closes the client and stops the embedded Redis, if any.
func (s *DB) Close() error {
	err := s.client.Close()
	if s.embedded != nil {
		s.embedded.Close()
	}
	if err != nil && !errors.Is(err, redis.ErrClosed) {
		return fmt.Errorf("close redis client: %w", err)
	}
	return nil
}

// Keys builds this store's keys.
func (s *DB) Keys() Keys { return s.keys }

// Embedded reports whether this is the embedded in-memory Redis.
func (s *DB) Embedded() bool { return s.embedded != nil }
