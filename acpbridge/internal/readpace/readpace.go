// Package readpace makes a reader of another process's line-per-event output
// cheap: an agent writes one line per model delta, and a reader that wakes for
// each pays a read system call, a goroutine switch and a wake-up of the Go
// runtime's sysmon per line. Pacing small reads lets one read pick up every
// line written meanwhile, and a blocking pipe keeps the runtime's network
// poller from waking for each line while the reader waits out the pace.
//
// The Codex bridge (acpbridge/codex) and the external ACP client
// (acpbridge/external) both read their agent's stdout through it.
package readpace

import (
	"io"
	"time"
)

// Pace is the shortest interval between two small reads. Measured with make
// bench-bridge on the built-in bridge, 10 ms cut its CPU by about a third
// against 2 ms; a chat card, redrawn a few times a second at most, shows
// neither.
const Pace = 10 * time.Millisecond

// Small is the size under which a read counts as a trickle worth pacing;
// bigger reads (a history replay, command output) go on at once.
const Small = 4 << 10

// Reader paces small reads from R. One goroutine, the read loop, uses it.
type Reader struct {
	R io.Reader
	// Sleep waits; nil means time.Sleep.
	Sleep func(time.Duration)
	last  time.Time        // when the last small read returned; zero after a big one
	now   func() time.Time // nil means time.Now; tests freeze it
}

func (p *Reader) Read(b []byte) (int, error) {
	now := p.now
	if now == nil {
		now = time.Now
	}
	if !p.last.IsZero() {
		if d := Pace - now().Sub(p.last); d > 0 {
			if p.Sleep != nil {
				p.Sleep(d)
			} else {
				time.Sleep(d)
			}
		}
	}
	n, err := p.R.Read(b)
	if n < Small {
		p.last = now()
	} else {
		p.last = time.Time{}
	}
	return n, err
}
