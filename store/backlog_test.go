package store

import (
	"context"
	"testing"
)

// A user's backlog counts each message once, refuses the one beyond max
// (counting nothing), and makes room as messages are released; another
// user's backlog is apart.
func TestBacklogBoundsOneUser(t *testing.T) { forEachBackend(t, testBacklogBoundsOneUser) }

func testBacklogBoundsOneUser(t *testing.T, s *stores) {
	ctx := context.Background()
	reserve := func(user, msg string) (bool, bool) {
		t.Helper()
		ok, added, err := s.ReserveBacklog(ctx, user, msg, 2)
		if err != nil {
			t.Fatal(err)
		}
		return ok, added
	}
	count := func(user string, want int) {
		t.Helper()
		if n, err := s.Backlog(ctx, user); err != nil || n != want {
			t.Fatalf("Backlog(%s) = %d %v, want %d", user, n, err, want)
		}
	}
	for _, tc := range []struct {
		user, msg   string
		ok, added   bool
		afterBalice int
	}{
		{"alice", "single:alice s1", true, true, 1},
		{"alice", "group:team s2", true, true, 2},
		{"alice", "single:alice s1", true, false, 2}, // a repeat of one counted
		{"alice", "group:team s3", false, false, 2},  // beyond max: refused
		{"bob", "group:team s4", true, true, 2},      // bob's own backlog
	} {
		ok, added := reserve(tc.user, tc.msg)
		if ok != tc.ok || added != tc.added {
			t.Fatalf("ReserveBacklog(%s, %s) = %v %v, want %v %v", tc.user, tc.msg, ok, added, tc.ok, tc.added)
		}
		count("alice", tc.afterBalice)
	}
	count("bob", 1)
	if err := s.ReleaseBacklog(ctx, "alice", "single:alice s1"); err != nil {
		t.Fatal(err)
	}
	count("alice", 1)
	if ok, added := reserve("alice", "group:team s3"); !ok || !added {
		t.Fatalf("ReserveBacklog after a release = %v %v, want reserved and added", ok, added)
	}
	count("alice", 2)
}
