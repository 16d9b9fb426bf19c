package codex

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// Snapshots past the newest kept are dropped, oldest first, and the ones
// an earlier release named by turn id alone are found, forgotten and
// pruned like the others (as the oldest). Real git on a real work tree.
func TestSnapshotsArePrunedOldestFirst(t *testing.T) {
	ctx := t.Context()
	work := t.TempDir()
	s := snapshotter{gitDir: filepath.Join(t.TempDir(), "thread.git"), workTree: work}
	trees := map[string]string{}
	take := func(turn, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(work, "f.txt"), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		tree, err := s.take(ctx)
		if err != nil {
			t.Fatal(err)
		}
		trees[turn] = tree
	}
	take("old", "0")
	if err := s.git(ctx, nil, "update-ref", snapshotRefs+"old", trees["old"]); err != nil {
		t.Fatal(err)
	}
	for i, turn := range []string{"t1", "t2", "t3"} {
		take(turn, string(rune('1'+i)))
		if err := s.keep(ctx, turn, trees[turn]); err != nil {
			t.Fatal(err)
		}
	}
	if got := turnsOf(t, s); !slices.Equal(got, []string{"old", "t1", "t2", "t3"}) {
		t.Fatalf("snapshots %v, want old t1 t2 t3", got)
	}
	if tree, ok, err := s.find(ctx, "old"); err != nil || !ok || tree != trees["old"] {
		t.Fatalf("find(old) = %s %v %v, want %s", tree, ok, err, trees["old"])
	}
	if err := s.forget(ctx, "t2"); err != nil {
		t.Fatal(err)
	}
	if err := s.prune(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if got := turnsOf(t, s); !slices.Equal(got, []string{"t3"}) {
		t.Fatalf("after forget(t2) and prune(1): %v, want t3", got)
	}
	if _, ok, err := s.find(ctx, "t1"); err != nil || ok {
		t.Fatalf("find(t1) after the prune = %v %v, want none", ok, err)
	}
}

func turnsOf(t *testing.T, s snapshotter) []string {
	t.Helper()
	refs, err := s.refs(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var turns []string
	for _, r := range refs {
		turns = append(turns, r.turn)
	}
	return turns
}
