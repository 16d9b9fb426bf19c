package configs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestMaxQueuedPerUser(t *testing.T) {
	if n := Default().Access.MaxQueuedPerUser; n != 5 {
		t.Fatalf("default access.max_queued_per_user = %d, want 5", n)
	}
	path := filepath.Join(t.TempDir(), "w.yaml")
	if err := os.WriteFile(path, []byte("access:\n  max_queued_per_user: 2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, _, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := cfg.Access.MaxQueuedPerUser; n != 2 {
		t.Fatalf("loaded access.max_queued_per_user = %d, want 2", n)
	}
	t.Setenv("WECODEX_ACCESS_MAX_QUEUED_PER_USER", "3")
	if cfg, _, err = Load(path); err != nil || cfg.Access.MaxQueuedPerUser != 3 {
		t.Fatalf("access.max_queued_per_user from the environment = %d %v, want 3", cfg.Access.MaxQueuedPerUser, err)
	}
	for _, n := range []int{0, -1} {
		c := Default()
		c.Access.MaxQueuedPerUser = n
		var ps Problems
		if err := c.Validate(); !errors.As(err, &ps) {
			t.Fatalf("max_queued_per_user %d: err %v, want Problems", n, err)
		}
		var got []Problem
		for _, p := range ps {
			if p.Key == "access.max_queued_per_user" {
				got = append(got, p)
			}
		}
		want := []Problem{{"access.max_queued_per_user", fmt.Sprintf("must be a positive number of messages like 5, not %d", n)}}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("max_queued_per_user %d: problems %+v, want %+v", n, got, want)
		}
	}
}
