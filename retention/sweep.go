package retention

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/wecodex/wecodex/acpbridge/codex"
	"github.com/wecodex/wecodex/store"
)

// Threads is the agent's store of threads (codex.Agent).
type Threads interface {
	StoredThreads(ctx context.Context) ([]codex.StoredThread, error)
	DeleteThread(ctx context.Context, id string) error
}

// Conversations is the store's record of which conversation runs in which
// thread (store.Conversations).
type Conversations interface {
	ListConversations(ctx context.Context) ([]store.ConversationRecord, error)
	ForgetSession(ctx context.Context, conv string) error
}

// ThreadLists are the threads each conversation used, as /sessions lists
// them (store.Threads).
type ThreadLists interface {
	UsedThreads
	ForgetThreads(ctx context.Context, conv string, ids []string) error
}

// AuditStream is the audit trail's Redis stream (store.Audit).
type AuditStream interface {
	TrimAudit(ctx context.Context, before time.Time) (int64, error)
}

// Options configure a Sweeper. A zero age, or a nil part, leaves that
// kind of content alone.
type Options struct {
	// Threads, Attachments and Audit are the retention.* ages.
	Threads, Attachments, Audit time.Duration
	// Agent holds the threads (nil: agent.kind acp, whose threads wecodex
	// cannot list).
	Agent Threads
	// Conversations forgets a deleted thread, so the conversation's next
	// turn starts a fresh one instead of failing to resume it.
	Conversations Conversations
	// Lists drops a deleted thread from its conversation's /sessions
	// (nil: nothing to drop).
	Lists ThreadLists
	// WorkspaceRoot is agent.workspace_root, where each conversation's
	// workspace keeps its attachments/.
	WorkspaceRoot string
	// Stream is the audit stream (nil: audit.redis is off).
	Stream AuditStream
	// Now is the clock; nil is time.Now.
	Now func() time.Time
	// Logger receives what was removed and what failed; nil discards it.
	Logger *slog.Logger
}

// Sweeper removes what is older than its ages.
type Sweeper struct {
	opts Options
	log  *slog.Logger
}

// New makes a Sweeper.
func New(opts Options) *Sweeper {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Sweeper{opts: opts, log: log}
}

// Report is what one sweep removed.
type Report struct {
	Threads      []string // ids of the deleted threads
	Attachments  []string // the removed files, relative to the workspace root
	AuditRecords int64    // audit stream entries trimmed
}

// Active says whether any age is set and has something to act on.
func (s *Sweeper) Active() bool {
	o := s.opts
	return (o.Threads > 0 && o.Agent != nil) || (o.Attachments > 0 && o.WorkspaceRoot != "") || (o.Audit > 0 && o.Stream != nil)
}

// Sweep removes, once, everything past its age. What fails is returned
// joined; the rest is still swept.
func (s *Sweeper) Sweep(ctx context.Context) (Report, error) {
	var r Report
	var errs []error
	now := s.opts.Now()
	if s.opts.Threads > 0 && s.opts.Agent != nil {
		ids, err := s.sweepThreads(ctx, now.Add(-s.opts.Threads))
		r.Threads = ids
		errs = append(errs, err)
	}
	if s.opts.Attachments > 0 && s.opts.WorkspaceRoot != "" {
		files, err := sweepAttachments(s.opts.WorkspaceRoot, now.Add(-s.opts.Attachments))
		r.Attachments = files
		errs = append(errs, err)
	}
	if s.opts.Audit > 0 && s.opts.Stream != nil {
		n, err := s.opts.Stream.TrimAudit(ctx, now.Add(-s.opts.Audit))
		r.AuditRecords = n
		errs = append(errs, err)
	}
	if len(r.Threads)+len(r.Attachments) > 0 || r.AuditRecords > 0 {
		s.log.Info("retention sweep", "threads", len(r.Threads), "attachments", len(r.Attachments), "audit_records", r.AuditRecords)
	}
	return r, errors.Join(errs...)
}

// Run sweeps at once and then every interval until ctx ends.
func (s *Sweeper) Run(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if _, err := s.Sweep(ctx); err != nil && ctx.Err() == nil {
			s.log.Warn("retention sweep", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Interval is how often a sweep runs for these ages: a tenth of the
// shortest, between a second and an hour, so content outlives its age by
// at most a tenth of it (or an hour).
func Interval(ages ...time.Duration) time.Duration {
	d := time.Hour
	for _, a := range ages {
		if a > 0 && a/10 < d {
			d = a / 10
		}
	}
	return max(d, time.Second)
}
