package webhook

import (
	"sync"

	"github.com/wecodex/wecodex/cards"
)

// runningStreams are the streams whose turns run on this replica, with the
// newest frame each turn showed. Redis can lose a running stream's frame
// (restarted empty, failed over) between two writes of its turn; a refresh
// that arrives then must not be told the stream is unknown and finished,
// because WeCom stops refreshing at finish and the user would never see
// the answer. This replica still knows the turn runs and what it showed
// last: it answers a refresh with that, and writes it back into Redis
// (keepFrame), so every other replica answers it too.
type runningStreams struct {
	mu sync.Mutex
	m  map[string]runningFrame
}

// runningFrame is what a running turn last showed on its stream, and who
// may see it (see owner). finished is set once the stream is finished (its
// window closed, or the answer outgrew it) while the turn still runs.
type runningFrame struct {
	owner    frameOwner
	content  string
	finished bool
}

// textStillWorking answers a refresh for a running turn whose frame nobody
// can show right now: nothing shown yet on this replica, or the frame lost
// with Redis while the turn runs elsewhere.
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

// show records content as the newest frame of a running stream, finished
// or not.
func (r *runningStreams) show(streamID, content string, finished bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if f, ok := r.m[streamID]; ok {
		f.content, f.finished = content, finished
		r.m[streamID] = f
	}
}

// end forgets a stream whose turn ended here.
func (r *runningStreams) end(streamID string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.m, streamID)
}

// newest is the stream's newest frame as it is stored: ok is false when no
// turn of it runs here.
func (r *runningStreams) newest(streamID string) (storedFrame, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	f, ok := r.m[streamID]
	if !ok {
		return storedFrame{}, false
	}
	s := storedFrame{state: frameRunning, owner: f.owner, content: f.content}
	if f.finished {
		s.state = frameFinished
	}
	if s.content == "" {
		s.content = textStillWorking
	}
	return s, true
}

// frame is the frame a refresh of a running stream owned by owner is
// answered with; ok is false when no turn of it runs here or another
// conversation or user owns it.
func (r *runningStreams) frame(streamID string, owner frameOwner) (Frame, bool) {
	s, ok := r.newest(streamID)
	if !ok || s.owner != owner {
		return Frame{}, false
	}
	return s.frame(streamID), true
}
