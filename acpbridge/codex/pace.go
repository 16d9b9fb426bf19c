package codex

import (
	"io"
	"time"
)

// readPace is the shortest interval between two small reads of the
// app-server's output. Codex writes one line per delta, and a reader that
// wakes for each pays a read system call, a goroutine switch and a wake-up
// of the Go runtime's sysmon (which then polls every 20µs for a while) per
// delta; waiting this long after a small read lets the next read pick up
// everything written meanwhile. Measured with make bench-bridge, 10 ms cut
// the bridge's CPU by about a third against 2 ms; a chat reader, whose card
// is redrawn a few times a second at most, cannot see either.
const readPace = 10 * time.Millisecond

// smallRead is the size under which a read counts as a trickle worth
// pacing; bigger reads (history, command output) go on at once.
const smallRead = 4 << 10

// pacedReader paces small reads from r (see readPace). It is used by one
// goroutine, the read loop.
type pacedReader struct {
	r     io.Reader
	last  time.Time // when the last small read returned; zero after a big one
	sleep func(time.Duration)
}

func (p *pacedReader) Read(b []byte) (int, error) {
	if !p.last.IsZero() {
		if d := readPace - time.Since(p.last); d > 0 {
			p.sleep(d)
		}
	}
	n, err := p.r.Read(b)
	if n < smallRead {
		p.last = time.Now()
	} else {
		p.last = time.Time{}
	}
	return n, err
}
