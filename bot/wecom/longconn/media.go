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
// are in. Messages of one conversation still run in the order they were
// sent: while one of them waits for its files, every later message of that
// conversation, with files or without, waits in the conversation's line
// behind it and is received after it (a text sent right after a picture
// must not start before it). A redelivery of a message whose files are
// still being fetched is dropped here (only the connection holder receives
// callbacks, so this process sees every delivery); intake's dedupe guards
// the rest.

// fetches are the conversations whose messages wait for files, each with
// its line of messages, and the msgids of the messages in them; the
// channel owns their goroutines and Close waits for them.
type fetches struct {
	life  context.Context
	stop  context.CancelFunc
	wg    sync.WaitGroup
	mu    sync.Mutex
	lines map[bot.Conversation][]waiting
	msgs  map[string]bool
}

// waiting is a message in its conversation's line, with the files it
// still needs (none for a message that only waits for its turn).
type waiting struct {
	m    bot.Message
	refs []wecom.MediaRef
}

func newFetches() fetches {
	life, stop := context.WithCancel(context.Background())
	return fetches{life: life, stop: stop, lines: map[bot.Conversation][]waiting{}, msgs: map[string]bool{}}
}

// fetchThenReceive puts m at the end of its conversation's line, where its
// files are fetched and it is handed, with them, to in. The line starts now
// when the conversation has none.
func (c *Channel) fetchThenReceive(in Intake, m bot.Message, refs []wecom.MediaRef) {
	f := &c.fetches
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.msgs[m.ID] {
		c.log.Info("redelivery of a message whose attachments are being fetched dropped", "msgid", m.ID)
		return
	}
	c.joinLocked(in, waiting{m: m, refs: refs})
}

// joinBusyLine puts m, a message without files, at the end of its
// conversation's line when a message of it waits for its files, and
// reports whether it did; otherwise the caller hands m to intake at once.
func (c *Channel) joinBusyLine(in Intake, m bot.Message) bool {
	f := &c.fetches
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, busy := f.lines[m.Conversation]; !busy {
		return false
	}
	c.joinLocked(in, waiting{m: m})
	return true
}

// joinLocked appends w to its conversation's line, starting the line's
// goroutine when there was no line. Call it with f.mu held.
func (c *Channel) joinLocked(in Intake, w waiting) {
	f := &c.fetches
	conv := w.m.Conversation
	line, busy := f.lines[conv]
	f.lines[conv] = append(line, w)
	f.msgs[w.m.ID] = true
	if busy {
		return
	}
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		c.runLine(in, conv)
	}()
}

// runLine receives the messages of conv's line in order, fetching each
// one's files first, until the line is empty.
func (c *Channel) runLine(in Intake, conv bot.Conversation) {
	f := &c.fetches
	for {
		f.mu.Lock()
		line := f.lines[conv]
		if len(line) == 0 {
			delete(f.lines, conv)
			f.mu.Unlock()
			return
		}
		w := line[0]
		f.mu.Unlock()

		c.fetchAndReceive(in, w)

		f.mu.Lock()
		f.lines[conv] = f.lines[conv][1:]
		delete(f.msgs, w.m.ID)
		f.mu.Unlock()
	}
}

func (c *Channel) fetchAndReceive(in Intake, w waiting) {
	f := &c.fetches
	m := w.m
	if len(w.refs) > 0 {
		m.Attachments = c.Media.Fetch(f.life, m.ID, w.refs)
		for _, a := range m.Attachments {
			if a.Problem != "" {
				c.log.Info("attachment missing", "msgid", m.ID, "kind", a.Kind, "problem", a.Problem)
			}
		}
	}
	if _, err := in.Receive(f.life, m); err != nil {
		c.log.Warn("message not taken", "msgid", m.ID, "err", err)
	}
}

// Close stops the fetches still running and waits for them.
func (c *Channel) Close() {
	c.fetches.stop()
	c.fetches.wg.Wait()
}
