package webhook

import (
	"context"
	"time"
)

// A refresh that finds no frame is answered "unknown" with finish set, and
// WeCom stops refreshing at finish: said of a running turn, the user never
// sees its answer. A frame goes missing while its turn runs when Redis
// loses its data (restarted empty, failed over to a replica that had not
// seen it). Then the lease and the heartbeat that say which replica runs
// the turn are gone as well, until that replica's next renewal rewrites
// them, so for a while nobody but the owner can tell a running stream from
// an unknown one. The rule, in missingFrame:
//  1. the turn runs here: its newest frame (runningStreams);
//  2. Redis lost its data less than a loss window ago (the store's data
//     mark was gone when a frame was first missed after the loss): not
//     finished, whoever asks; within the window the owner writes its frame
//     back (keepFrame, every restoreEvery) and its lease;
//  3. the asker's conversation holds its lease on a replica whose heartbeat
//     is current: not finished (the loss is older but the owner's write has
//     not come yet, say it failed once);
//  4. otherwise the stream is unknown.
// Answers 2 and 3 say only "still working", for any stream id, so they tell
// a stranger nothing of another conversation's streams.

// DefaultRestoreEvery is how often a replica writes back the frame of each
// stream running on it that Redis lost.
const DefaultRestoreEvery = 10 * time.Second

// lossWindowPeriods is the loss window in restore periods: one for the
// owner's next write back, two more for a write that met a Redis just back
// from its restart, or a loaded machine.
const lossWindowPeriods = 3

// missingFrame answers a refresh of a stream that has no frame (see above).
func (c *Channel) missingFrame(ctx context.Context, streamID string, from Asker) (Frame, bool, error) {
	if f, ok := c.running.frame(streamID, owner(from.Conversation, from.User)); ok {
		c.log.Info("refresh of a running stream whose frame the store lost; answered from the running turn", "stream", streamID)
		return f, true, nil
	}
	lost, err := c.store.NoteMissingFrame(ctx, lossWindowPeriods*c.restoreEvery)
	if err != nil {
		return Frame{StreamID: streamID}, false, err
	}
	if lost {
		c.log.Info("refresh of a stream missing right after Redis lost its data; answered not finished", "stream", streamID)
		return Frame{StreamID: streamID, Content: textStillWorking}, true, nil
	}
	running, err := c.store.TurnRunning(ctx, from.Conversation.Key())
	if err != nil {
		return Frame{StreamID: streamID}, false, err
	}
	if running {
		c.log.Info("refresh of a missing stream while a turn of its conversation runs; answered not finished", "stream", streamID)
		return Frame{StreamID: streamID, Content: textStillWorking}, true, nil
	}
	return Frame{StreamID: streamID}, false, nil
}

// keepFrame writes the stream's newest frame back whenever Redis lost it,
// every restoreEvery while the turn runs here. It writes only into a
// stream that has no frame, so it never replaces one the turn wrote since.
// stop ends it; it must be called once.
func (c *Channel) keepFrame(streamID string) (stop func()) {
	tick, cancel := c.restoreTicker(streamID)
	ctx, end := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick:
				c.restoreFrame(ctx, streamID)
			}
		}
	}()
	return func() {
		end()
		<-stopped
		cancel()
	}
}

func (c *Channel) restoreFrame(ctx context.Context, streamID string) {
	s, ok := c.running.newest(streamID)
	if !ok {
		return
	}
	stored, err := c.store.SaveFrameIf(ctx, streamID, string(frameAbsent), string(s.state), s.owner.conversation, s.owner.user, s.content)
	switch {
	case err != nil && ctx.Err() == nil:
		c.log.Warn("write back a lost frame; next period", "stream", streamID, "err", err)
	case stored:
		c.log.Info("frame the store lost written back", "stream", streamID)
	}
	if c.hooks.restored != nil {
		c.hooks.restored(streamID, stored)
	}
}

func (c *Channel) restoreTicker(streamID string) (<-chan time.Time, func()) {
	if c.hooks.restore != nil {
		return c.hooks.restore(streamID), func() {}
	}
	t := time.NewTicker(c.restoreEvery)
	return t.C, t.Stop
}
