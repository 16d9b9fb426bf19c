package store

import (
	"context"
	"testing"
)

func TestPhaseRecords(t *testing.T) {
	s := openRealStore(t)
	ctx := context.Background()
	expectPhase := func(thread, item, want string, wantOK bool) {
		t.Helper()
		got, ok, err := s.Phase(ctx, thread, item)
		if err != nil {
			t.Fatal(err)
		}
		if got != want || ok != wantOK {
			t.Fatalf("Phase(%s, %s) = %q, %v; want %q, %v", thread, item, got, ok, want, wantOK)
		}
	}

	expectPhase("th1", "msg_1", "", false)
	if err := s.SetPhase(ctx, "th1", "msg_1", "commentary"); err != nil {
		t.Fatal(err)
	}
	if err := s.SetPhase(ctx, "th1", "msg_2", ""); err != nil { // null phase
		t.Fatal(err)
	}
	if err := s.SetPhase(ctx, "th2", "msg_1", "final_answer"); err != nil {
		t.Fatal(err)
	}
	expectPhase("th1", "msg_1", "commentary", true)
	expectPhase("th1", "msg_2", "", true)
	expectPhase("th2", "msg_1", "final_answer", true)

	ttl, err := s.Client().TTL(ctx, s.Keys().Phase("th1", "msg_1")).Result()
	if err != nil {
		t.Fatal(err)
	}
	if ttl <= 0 || ttl > PhaseTTL {
		t.Fatalf("phase TTL = %v, want in (0, %v]", ttl, PhaseTTL)
	}

	if err := s.SetPhase(ctx, "th1", "msg_1", "final_answer"); err != nil { // overwrite
		t.Fatal(err)
	}
	expectPhase("th1", "msg_1", "final_answer", true)

	if err := s.ForgetPhase(ctx, "th1", "msg_1"); err != nil {
		t.Fatal(err)
	}
	expectPhase("th1", "msg_1", "", false)
	expectPhase("th2", "msg_1", "final_answer", true)
	if err := s.ForgetPhase(ctx, "th1", "never-set"); err != nil {
		t.Fatalf("forgetting a missing phase: %v", err)
	}
}

func TestPhasesAreSeparatedByPrefix(t *testing.T) {
	a, b := openRealStore(t), openRealStore(t)
	ctx := context.Background()
	if err := a.SetPhase(ctx, "th", "msg", "commentary"); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := b.Phase(ctx, "th", "msg"); err != nil || ok {
		t.Fatalf("store with another prefix sees the phase: ok=%v err=%v", ok, err)
	}
}

func TestForeignValueIsAnError(t *testing.T) {
	s := openRealStore(t)
	ctx := context.Background()
	if err := s.Client().Set(ctx, s.Keys().Phase("th", "msg"), "commentary", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Phase(ctx, "th", "msg"); err == nil || err.Error() != `look up phase of item msg: unexpected value "commentary"` {
		t.Fatalf("err = %v", err)
	}
}
