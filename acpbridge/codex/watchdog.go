package codex

import (
	"context"
	"errors"
	"time"

	"github.com/wecodex/wecodex/procgroup"
)

// How the watchdog tells a hung app-server from a busy one: while it has
// work, it must answer a cheap request (thread/loaded/list, which reads only
// the app-server's own memory) within the timeout. A Codex that is SIGSTOPped,
// deadlocked or swapped out fails that; a Codex streaming a long turn does
// not, since requests are served beside running turns.
const (
	defaultWatchInterval = 5 * time.Second
	defaultWatchTimeout  = 10 * time.Second
)

// watch pings the app-server every interval while busy reports work or a
// request waits for an answer, and kills it (marking it hung) when a ping is
// not answered within timeout. Killing ends the read loop, which fails every
// pending call and held turn; the next call starts a new app-server. It
// returns when the process is gone.
func (c *conn) watch(interval, timeout time.Duration, busy func() bool) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-c.done:
			return
		case <-t.C:
		}
		if !busy() && c.pendingCalls() == 0 {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		err := c.call(ctx, "thread/loaded/list", threadLoadedListParams{Limit: 1}, nil)
		cancel()
		if err == nil || !errors.Is(err, context.DeadlineExceeded) {
			continue // answered (or gone: done is closed)
		}
		c.log.Warn("codex app-server stopped answering; killing it so the next message restarts it",
			"pid", c.cmd.Process.Pid, "waited", timeout)
		c.hung.Store(true)
		_ = procgroup.Kill(c.cmd)
		<-c.done
		return
	}
}
