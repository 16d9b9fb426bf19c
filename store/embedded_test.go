package store

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
)

func TestOpenWithoutAddressStartsEmbeddedRedis(t *testing.T) {
	var logs bytes.Buffer
	ctx := context.Background()
	db, err := Open(ctx, Options{Prefix: "wecodex:"}, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	s := allOf(db)
	if !s.Embedded() || s.Keys().Prefix() != "wecodex:" {
		t.Fatalf("Embedded()=%v Prefix()=%q", s.Embedded(), s.Keys().Prefix())
	}
	if line := logs.String(); !strings.Contains(line, "level=WARN") || !strings.Contains(line, "nothing survives a restart") {
		t.Fatalf("no warning that state is not durable: %s", line)
	}
	if err := s.SetPhase(ctx, "th", "msg", "commentary"); err != nil {
		t.Fatal(err)
	}
	if p, ok, err := s.Phase(ctx, "th", "msg"); err != nil || !ok || p != "commentary" {
		t.Fatalf("Phase = %q, %v, %v", p, ok, err)
	}
	// TTLs must be kept (miniredis' default is to never expire keys).
	ttl, err := s.Client().TTL(ctx, s.Keys().Phase("th", "msg")).Result()
	if err != nil || ttl <= 0 || ttl > PhaseTTL {
		t.Fatalf("TTL = %v, %v", ttl, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Ping(ctx); err == nil {
		t.Fatal("Ping after Close succeeded")
	}
}

func TestEmbeddedRedisRefusesClientsWithoutThePassword(t *testing.T) {
	s, err := Open(context.Background(), Options{Prefix: "p:"}, discardLog())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	other, err := Open(context.Background(), Options{Addrs: []string{s.embedded.Addr()}, Prefix: "p:"}, discardLog())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := other.Ping(context.Background()); err == nil || !strings.Contains(err.Error(), "NOAUTH") {
		t.Fatalf("Ping without password: %v", err)
	}
}
