package codex

import (
	"context"
	"fmt"
	"slices"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge"
)

// maxListedThreads is thread/list's limit on includedThreadIds (Codex
// rejects a longer list rather than cutting it).
const maxListedThreads = 100

// ThreadInfo returns what Codex knows of the threads ids (at most
// maxListedThreads of them), by id; a thread Codex does not know is left
// out, and no other is ever reported.
func (a *Agent) ThreadInfo(ctx context.Context, ids []string) (map[string]acpbridge.ThreadInfo, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	if len(ids) > maxListedThreads {
		ids = ids[:maxListedThreads]
	}
	c, _, err := a.ensureConn(ctx)
	if err != nil {
		return nil, err
	}
	// Only the threads named: a caller names the ones it may show, and
	// never learns of any other.
	r, err := c.listThreads(ctx, threadListParams{IncludedThreadIDs: ids, Limit: len(ids), SourceKinds: sessionSources})
	if err != nil {
		return nil, err
	}
	out := make(map[string]acpbridge.ThreadInfo, len(r.Data))
	for _, t := range r.Data {
		if slices.Contains(ids, t.ID) {
			out[t.ID] = acpbridge.ThreadInfo{Name: deref(t.Name), Preview: t.Preview, Cwd: t.Cwd, Updated: time.Unix(t.UpdatedAt, 0)}
		}
	}
	return out, nil
}

// ForkThread branches the session's thread into a new one working in cwd,
// with the same settings a new thread there gets; the original is left as
// it was. The fork is left unloaded, for whichever process runs its first
// turn to resume.
func (a *Agent) ForkThread(ctx context.Context, id acp.SessionId, cwd string) (acp.SessionId, error) {
	config, err := a.threadConfig(cwd)
	if err != nil {
		return "", fmt.Errorf("fork codex thread %s: %w", id, err)
	}
	ts := a.settings(cwd)
	c, gen, err := a.ensureConn(ctx)
	if err != nil {
		return "", err
	}
	var r threadResponse
	// thread/fork takes thread/resume's parameters, by the same names.
	if err := c.call(ctx, "thread/fork", threadResumeParams{
		ThreadID: string(id), Cwd: cwd, ApprovalPolicy: a.opts.ApprovalPolicy, Sandbox: a.sandbox(),
		Config: withEffort(config, ts), Model: ts.Model, DeveloperInstructions: ts.Instructions, ExcludeTurns: true,
	}, &r); err != nil {
		return "", fmt.Errorf("fork codex thread %s: %w", id, err)
	}
	a.log.Info("codex thread forked", "thread", id, "fork", r.Thread.ID)
	// Codex lets only the process that has a thread loaded resume it ("already
	// has an active writer"): unloaded now, the fork's first turn may run on
	// any replica, which resumes it.
	if err := a.unload(ctx, c, r.Thread.ID); err != nil {
		a.log.Warn("unload the fork; only this process can resume it until it idles out", "fork", r.Thread.ID, "err", err)
		th := a.threadFor(r.Thread.ID)
		a.mu.Lock()
		th.cwd, th.gen = cwd, gen
		a.mu.Unlock()
		a.scheduleUnload(th)
	}
	return acp.SessionId(r.Thread.ID), nil
}

// forkUnloadWait bounds the wait for thread/closed after unsubscribing
// from a fork: Codex closes it at once (thread_unload_delay_secs 0), unless
// an operator set a delay.
const forkUnloadWait = 10 * time.Second

type threadUnsubscribeResponse struct {
	Status string `json:"status"`
}

// unload unsubscribes from a thread no turn of this process runs, and
// waits until Codex reports it closed: a resume sent before that, here or
// elsewhere, is refused ("is closing").
func (a *Agent) unload(ctx context.Context, c *conn, id string) error {
	closed := make(chan struct{})
	a.mu.Lock()
	a.closing[id] = closed
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		delete(a.closing, id)
		a.mu.Unlock()
	}()
	var r threadUnsubscribeResponse
	if err := c.call(ctx, "thread/unsubscribe", threadUnsubscribeParams{ThreadID: id}, &r); err != nil {
		return fmt.Errorf("unload codex thread %s: %w", id, err)
	}
	if r.Status == "notLoaded" {
		return nil
	}
	wait := time.NewTimer(forkUnloadWait)
	defer wait.Stop()
	select {
	case <-closed:
		return nil
	case <-c.done:
		return nil // the process is gone, and with it the thread's writer
	case <-wait.C:
		return fmt.Errorf("codex did not close thread %s within %s", id, forkUnloadWait)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// closed_ tells a waiting unload that Codex closed thread id.
func (a *Agent) threadUnloaded(id string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if ch, ok := a.closing[id]; ok {
		close(ch)
		delete(a.closing, id)
	}
}

type threadSetNameParams struct {
	ThreadID string `json:"threadId"`
	Name     string `json:"name"`
}

// NameThread gives the session's thread a title (thread/name/set), which
// thread/list then reports as its name.
func (a *Agent) NameThread(ctx context.Context, id acp.SessionId, name string) error {
	c, _, err := a.ensureConn(ctx)
	if err != nil {
		return err
	}
	if err := c.call(ctx, "thread/name/set", threadSetNameParams{ThreadID: string(id), Name: name}, nil); err != nil {
		return fmt.Errorf("name codex thread %s: %w", id, err)
	}
	return nil
}
