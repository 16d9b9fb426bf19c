package longconn

import (
	"context"
	"sync"

	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/bot/wecom"
)

// Callbacks are handed over one at a time in arrival order, and a file may
// take up to wecom.media.timeout to fetch: fetching in line would hold every
// other chat's messages and the card clicks behind it. So a message with
// files is fetched on a goroutine of its own and received when its files
// are in. A redelivery of a message whose files are still being fetched is
// dropped here (only the connection holder receives callbacks, so this
// process sees every delivery); intake's dedupe guards the rest.

// fetches are the messages with files being fetched, by msgid; the channel
// owns their goroutines and Close waits for them.
type fetches struct {
	life    context.Context
	stop    context.CancelFunc
	wg      sync.WaitGroup
	mu      sync.Mutex
	running map[string]bool
}

func newFetches() fetches {
	life, stop := context.WithCancel(context.Background())
	return fetches{life: life, stop: stop, running: map[string]bool{}}
}

// fetchThenReceive fetches m's files in the background and then hands m,
// with them, to in.
func (c *Channel) fetchThenReceive(in Intake, m bot.Message, refs []wecom.MediaRef) {
	f := &c.fetches
	f.mu.Lock()
	if f.running[m.ID] {
		f.mu.Unlock()
		c.log.Info("redelivery of a message whose attachments are being fetched dropped", "msgid", m.ID)
		return
	}
	f.running[m.ID] = true
	f.wg.Add(1)
	f.mu.Unlock()
	go func() {
		defer f.wg.Done()
		defer func() {
			f.mu.Lock()
			delete(f.running, m.ID)
			f.mu.Unlock()
		}()
		m.Attachments = c.Media.Fetch(f.life, m.ID, refs)
		for _, a := range m.Attachments {
			if a.Problem != "" {
				c.log.Info("attachment missing", "msgid", m.ID, "kind", a.Kind, "problem", a.Problem)
			}
		}
		if _, err := in.Receive(f.life, m); err != nil {
			c.log.Warn("message not taken", "msgid", m.ID, "err", err)
		}
	}()
}

// Close stops the fetches still running and waits for them.
func (c *Channel) Close() {
	c.fetches.stop()
	c.fetches.wg.Wait()
}
