// Package failoverlock lets one test at a time fail over the Sentinel setup
// that scripts/with-redis-topologies.sh starts for the whole `go test ./...`.
//
// Packages' tests run in parallel processes. Two failovers of one master at
// once interleave: a test that read master A, asked for a failover and saw
// INPROG, retried after the other test's A→B, and got B→A, then waits
// forever for a master other than A. Holding this lock, a test's failover is
// the only one.
package failoverlock

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Hold blocks until no other test process holds the failover lock of the
// sentinel at addr, and holds it until t ends.
func Hold(t testing.TB, addr string) {
	t.Helper()
	name := "wecodex-failover-" + strings.NewReplacer(":", "_", "/", "_", ",", "_").Replace(addr) + ".lock"
	f, err := os.OpenFile(filepath.Join(os.TempDir(), name), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		t.Fatalf("failover lock: %v", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		t.Fatalf("failover lock %s: %v", f.Name(), err)
	}
	t.Cleanup(func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		_ = f.Close()
	})
}
