package webhook

import "encoding/binary"

// The release before this one (f4bf939) stored a frame as one string: a
// state byte ('W', 'R', 'F'), the byte 0x01, the owner's length as a
// uvarint, the owner (the conversation, then in a 1:1 chat a NUL and the
// user), and the content. A rolling deploy runs both releases side by side
// for minutes, and a stream may be written by one and refreshed on the
// other, so this release still reads those frames; it never writes them.
// Remove this file with the release after this one: by then every such
// frame has expired (FrameTTL, minutes).

// legacyStates maps the previous release's state bytes.
var legacyStates = map[byte]frameState{'W': frameWaiting, 'R': frameRunning, 'F': frameFinished}

// decodeLegacyFrame decodes a frame the previous release wrote; ok is false
// for anything else (a frame written before owners were recorded, too).
func decodeLegacyFrame(b []byte) (storedFrame, bool) {
	if len(b) < 2 || b[1] != 0x01 {
		return storedFrame{}, false
	}
	state, known := legacyStates[b[0]]
	n, k := binary.Uvarint(b[2:])
	if !known || k <= 0 || n > uint64(len(b)-2-k) {
		return storedFrame{}, false
	}
	start := 2 + k
	own := string(b[start : start+int(n)])
	f := storedFrame{state: state, content: string(b[start+int(n):])}
	for i := 0; i < len(own); i++ {
		if own[i] == 0 {
			f.owner = frameOwner{conversation: own[:i], user: own[i+1:]}
			return f, true
		}
	}
	f.owner = frameOwner{conversation: own}
	return f, true
}

// newerOf picks, of this release's frame of a stream and the previous
// release's, the one further along: a finished frame over a running one
// over a waiting one (a stream only moves forward), and this release's on
// a tie (its writer took the stream over from the other).
func newerOf(cur, legacy storedFrame) storedFrame {
	rank := map[frameState]int{frameWaiting: 0, frameRunning: 1, frameFinished: 2}
	if rank[legacy.state] > rank[cur.state] {
		return legacy
	}
	return cur
}
