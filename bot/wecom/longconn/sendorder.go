package longconn

import (
	"encoding/json"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wecodex/wecodex/bot/wecom"
)

// chatOrder sends each chat's sends one after another, in the order they
// were taken, so the parts of a long answer (and a file after the text that
// names it) arrive in the order they were made; chats do not wait for each
// other.
type chatOrder struct {
	mu     sync.Mutex
	queues map[string][]func() // a chat is a key while its worker runs
}

// do runs send after the chat's earlier sends, on the chat's worker,
// counted in wg until it is done.
func (o *chatOrder) do(chat string, wg *sync.WaitGroup, send func()) {
	o.mu.Lock()
	if o.queues == nil {
		o.queues = map[string][]func(){}
	}
	q, running := o.queues[chat]
	o.queues[chat] = append(q, send)
	o.mu.Unlock()
	if running {
		return
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for next := o.next(chat); next != nil; next = o.next(chat) {
			next()
		}
	}()
}

// next takes the chat's next send, or ends its worker when none is left.
func (o *chatOrder) next(chat string) func() {
	o.mu.Lock()
	defer o.mu.Unlock()
	q := o.queues[chat]
	if len(q) == 0 {
		delete(o.queues, chat)
		return nil
	}
	o.queues[chat] = q[1:]
	return q[0]
}

// chatOf is the chat a recorded send goes to ("" for one that names none:
// those share one worker, in order too).
func chatOf(body []byte) string {
	var to struct {
		ChatID string `json:"chatid"`
	}
	_ = json.Unmarshal(body, &to)
	return to.ChatID
}

var lastSendStamp atomic.Int64

// newSendID names a recorded send so that the ids of one process sort in
// the order its sends were made: a new holder sends what waits in that
// order. The stamp is the clock's nanoseconds, kept strictly increasing
// within the process (two parts of one answer are made within a
// microsecond).
func newSendID() string {
	now := time.Now().UnixNano()
	for {
		last := lastSendStamp.Load()
		stamp := max(now, last+1)
		if lastSendStamp.CompareAndSwap(last, stamp) {
			return fmt.Sprintf("%s_%019d_%s", CmdSend, stamp, wecom.RandomHex(4))
		}
	}
}

// sortSends orders waiting send ids as newSendID made them.
func sortSends(ids []string) { sort.Strings(ids) }
