package retention

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// sweepThreads deletes every thread last updated before cutoff (a turn
// running in one keeps it) and forgets it in the conversations that ran
// in it. Another replica sharing CODEX_HOME may delete the same thread at
// the same time; its failure here is only logged.
func (s *Sweeper) sweepThreads(ctx context.Context, cutoff time.Time) ([]string, error) {
	threads, err := s.opts.Agent.StoredThreads(ctx)
	if err != nil {
		return nil, fmt.Errorf("retention.threads: %w", err)
	}
	var deleted []string
	for _, t := range threads {
		if t.Active || !t.Updated.Before(cutoff) {
			continue
		}
		if err := s.opts.Agent.DeleteThread(ctx, t.ID); err != nil {
			if ctx.Err() != nil {
				return deleted, ctx.Err()
			}
			s.log.Warn("retention.threads: delete an idle thread", "thread", t.ID, "err", err)
			continue
		}
		s.log.Debug("retention.threads: thread deleted", "thread", t.ID, "updated", t.Updated)
		deleted = append(deleted, t.ID)
	}
	return deleted, s.forgetThreads(ctx, deleted)
}

// forgetThreads drops ids from the conversations that recorded them.
func (s *Sweeper) forgetThreads(ctx context.Context, ids []string) error {
	if len(ids) == 0 || s.opts.Conversations == nil {
		return nil
	}
	gone := make(map[string]bool, len(ids))
	for _, id := range ids {
		gone[id] = true
	}
	convs, err := s.opts.Conversations.ListConversations(ctx)
	if err != nil {
		return fmt.Errorf("retention.threads: %w", err)
	}
	var errs []error
	for _, c := range convs {
		if gone[c.Session] {
			errs = append(errs, s.opts.Conversations.ForgetSession(ctx, c.Key))
		}
		errs = append(errs, s.unlist(ctx, c.Key, gone))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("retention.threads: %w", err)
	}
	return nil
}

// unlist drops the deleted threads from conv's /sessions list.
func (s *Sweeper) unlist(ctx context.Context, conv string, gone map[string]bool) error {
	if s.opts.Lists == nil {
		return nil
	}
	used, _, _, err := s.opts.Lists.UsedThreads(ctx, conv)
	if err != nil {
		return err
	}
	var drop []string
	for _, id := range used {
		if gone[id] {
			drop = append(drop, id)
		}
	}
	return s.opts.Lists.ForgetThreads(ctx, conv, drop)
}
