package codex

import (
	"regexp"
	"strings"
	"sync"
)

// tailBuffer keeps the last bytes the app-server wrote to stderr, so an exit
// can be explained without keeping (or logging) everything it ever wrote.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

// secretPattern matches what must never reach an error message: API keys and
// bearer tokens Codex might echo.
var secretPattern = regexp.MustCompile(`(?i)(sk-[A-Za-z0-9_\-]{8,}|bearer\s+[A-Za-z0-9._\-]+|(api[_-]?key|token|secret)["'=: ]+[^\s"',]+)`)

// ansiEscape matches the color codes Codex's logger writes.
var ansiEscape = regexp.MustCompile(`\x1b\[[0-9;]*[A-Za-z]`)

// tail returns the last few non-empty stderr lines, secrets redacted.
func (t *tailBuffer) tail() string {
	t.mu.Lock()
	s := ansiEscape.ReplaceAllString(string(t.buf), "")
	t.mu.Unlock()
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) > 3 {
		lines = lines[len(lines)-3:]
	}
	out := secretPattern.ReplaceAllString(strings.Join(lines, " | "), "[redacted]")
	if len(out) > 600 {
		out = "…" + out[len(out)-600:]
	}
	return out
}
