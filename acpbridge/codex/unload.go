package codex

import (
	"context"
	"maps"
	"time"
)

// DefaultIdleUnload is how long a thread stays loaded after its last turn.
// A conversation that speaks again within it pays nothing; one that returns
// later pays a thread/resume (a read of its rollout file, milliseconds).
// While it is loaded, Codex refuses to resume the thread in another
// process (`codex resume` in a terminal: "already has an active writer").
const DefaultIdleUnload = 2 * time.Minute

// unloadDelayKey is the app-server setting that decides how long a thread
// nobody is subscribed to stays loaded. Codex 0.171.0 keeps an unsubscribed
// thread loaded (its rollout file, its state database handles, ~0.7 MiB)
// for far longer than a test runs unless this is set; with it at 0,
// thread/unsubscribe unloads the thread at once and Codex reports
// thread/closed. Found by experiment: counting /proc/PID/fd of the
// app-server over 20 conversations, unsubscribe alone released nothing in
// 35 s; unsubscribe with this at 0 returned it to its starting count.
const unloadDelayKey = "thread_unload_delay_secs"

// withUnloadDelay returns config with thread_unload_delay_secs = 0 unless
// the operator set it: wecodex decides when a thread is idle (IdleUnload).
func withUnloadDelay(config map[string]string) map[string]string {
	if _, set := config[unloadDelayKey]; set {
		return config
	}
	out := maps.Clone(config)
	if out == nil {
		out = make(map[string]string, 1)
	}
	out[unloadDelayKey] = "0"
	return out
}

// scheduleUnload (re)starts the thread's idle clock.
func (a *Agent) scheduleUnload(th *thread) {
	d := a.opts.IdleUnload
	if d < 0 {
		return
	}
	if d == 0 {
		d = DefaultIdleUnload
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return
	}
	if th.idle != nil {
		th.idle.Stop()
	}
	th.idle = time.AfterFunc(d, func() { a.unloadIdle(th) })
}

// unloadIdle unsubscribes from a thread that has been idle for IdleUnload,
// which makes the app-server unload it. A thread that is busy again is left
// alone: its next release restarts the clock. The next Prompt resumes it.
func (a *Agent) unloadIdle(th *thread) {
	select {
	case th.sem <- struct{}{}:
	default:
		return
	}
	defer func() { <-th.sem }()
	a.mu.Lock()
	c, gen, closed := a.conn, a.gen, a.closed
	loaded := th.gen == gen && c != nil
	a.mu.Unlock()
	if closed || !loaded || c.exited() != nil {
		return
	}
	ctx, cancel := context.WithTimeout(a.ctx, defaultWatchTimeout)
	defer cancel()
	if err := c.call(ctx, "thread/unsubscribe", threadUnsubscribeParams{ThreadID: th.id}, nil); err != nil {
		a.log.Warn("unload idle codex thread", "thread", th.id, "err", err)
		return
	}
	a.markUnloaded(th.id, gen)
	a.log.Debug("codex thread unloaded after idling", "thread", th.id)
}

// markUnloaded records that a thread is no longer loaded in the app-server
// of generation gen, so the next Prompt resumes it.
func (a *Agent) markUnloaded(threadID string, gen int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if th := a.threads[threadID]; th != nil && th.gen == gen {
		th.gen = 0
	}
}

// threadClosed handles thread/closed: Codex unloaded the thread (after our
// unsubscribe, or on its own), so it must be resumed before its next turn.
func (a *Agent) threadClosed(c *conn, threadID string) {
	a.mu.Lock()
	gen := 0
	if a.conn == c {
		gen = a.gen
	}
	a.mu.Unlock()
	if gen != 0 {
		a.markUnloaded(threadID, gen)
	}
	a.threadUnloaded(threadID)
}
