package webhook

import (
	"sync"

	"github.com/wecodex/wecodex/cards"
)

// runningStreams are the streams whose turns run on this replica, with the
// newest frame content each turn showed. Redis can lose a running stream's
// frame (restarted empty, failed over) between two writes of its turn; a
// refresh that arrives then must not be told the stream is unknown and
// finished, because WeCom stops refreshing at finish and the user would
// never see the answer. This replica still knows the turn runs and what it
// showed last, so it answers that, not finished; the turn's next frame write
// puts the frame back in Redis (it writes unless the stored frame is
// finished, and nothing here writes one).
type runningStreams struct {
	mu sync.Mutex
	m  map[string]runningFrame
}

// runningFrame is what a running turn last showed on its stream, and who
// may see it (see owner).
type runningFrame struct {
	owner   frameOwner
	content string
}

// textStillWorking answers a refresh for a running turn that has shown
// nothing yet on this replica.
const textStillWorking = cards.ThinkingLine

// start records a turn of streamID running here.
func (r *runningStreams) start(streamID string, owner frameOwner) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil {
		r.m = map[string]runningFrame{}
	}
	r.m[streamID] = runningFrame{owner: owner}
}

// show records content as the newest frame of a running stream.
func (r *runningStreams) show(streamID, content string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if f, ok := r.m[streamID]; ok {
		f.content = content
		r.m[streamID] = f
	}
}

// end forgets a stream whose turn ended here.
func (r *runningStreams) end(streamID string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.m, streamID)
}

// frame is the not-finished frame a refresh of a running stream owned by
// owner is answered with; ok is false when no turn of it runs here or
// another conversation or user owns it.
func (r *runningStreams) frame(streamID string, owner frameOwner) (Frame, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	f, ok := r.m[streamID]
	if !ok || f.owner != owner {
		return Frame{}, false
	}
	content := f.content
	if content == "" {
		content = textStillWorking
	}
	return Frame{StreamID: streamID, Content: content}, true
}
