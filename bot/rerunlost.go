package bot

import (
	"context"
	"encoding/json"
)

// What happens to a message whose replica died running it
// (agent.rerun_orphaned).
const (
	RerunOnce  = "once"
	RerunNever = "never"
)

// runLostFirst runs once more, on this replica and before anything queued
// after it, a message whose replica died mid-turn (orphan), when
// agent.rerun_orphaned allows: its card keeps going, now noting the loss.
// token and item are TakeTurn's; the result is what this replica runs
// (token 0: nothing). run false leaves the orphan to failOrphan: not a
// message (a schedule's turn has missed: once, a control is not re-done), a
// message already lost once, reruns turned off, or the store failing.
func (s *scheduler) runLostFirst(ctx context.Context, conv, owner string, token int64, item, orphan []byte) (int64, []byte, bool) {
	var q queued
	if s.cfg.RerunOrphaned == RerunNever || json.Unmarshal(orphan, &q) != nil ||
		q.Pushed || q.Action != "" || q.LostOnce || !q.namespaced() {
		return token, item, false
	}
	q.LostOnce = true
	again, err := json.Marshal(q)
	if err != nil {
		return token, item, false
	}
	log := s.log.With("conv", conv, "msgid", q.MsgID, "stream", q.StreamID, "turn_replica", owner)
	// A card already finished means the holder was slow, not dead, and got
	// there first: running it again would answer twice.
	if shown, err := s.runner.showLost(ctx, q); err != nil || !shown {
		if err != nil {
			log.Warn("could not show that a lost message runs once more; its card asks for it again", "err", err)
		}
		return token, item, false
	}
	run, err := s.store.RunFirst(ctx, conv, s.cfg.Replica, token, again, s.cfg.LeaseTTL)
	if err != nil {
		// item (if any) is still this replica's turn; the orphan is lost.
		log.Error("could not run again the message of a replica that stopped; its card asks for it again", "err", err)
		return token, item, false
	}
	log.Warn("the replica running a message stopped before finishing it; it runs once more", "here", run != 0)
	if run == 0 {
		return 0, nil, true // another replica holds the lease: it runs next there
	}
	return run, again, true
}
