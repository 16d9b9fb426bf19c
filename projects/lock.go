package projects

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// lockFile takes an exclusive flock on path, creating it, and returns its
// release. flock locks belong to the open file, so two goroutines of one
// process exclude each other as two replicas sharing the directory do. A
// ctx that ends first returns its error; the lock, when it comes, is then
// let go at once.
func lockFile(ctx context.Context, path string) (release func(), err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create %s: %w", filepath.Dir(path), err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open lock %s: %w", path, err)
	}
	got := make(chan error, 1)
	go func() { got <- syscall.Flock(int(f.Fd()), syscall.LOCK_EX) }()
	unlock := func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		_ = f.Close()
	}
	select {
	case err := <-got:
		if err != nil {
			_ = f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		return unlock, nil
	case <-ctx.Done():
		go func() {
			if <-got == nil {
				unlock()
				return
			}
			_ = f.Close()
		}()
		return nil, fmt.Errorf("wait for lock %s: %w", path, context.Cause(ctx))
	}
}
