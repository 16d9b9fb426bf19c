package scriptedmodel

import "sync"

// Gate pauses a scripted stream at a chosen point until a test releases it,
// so the test can act (interrupt the turn, kill Codex) while Codex is
// mid-answer. Make one with [NewGate]; attach it with [Response.WithHold].
// A gate is single-use: once released it lets every later stream through.
type Gate struct {
	reached     chan struct{}
	released    chan struct{}
	reachOnce   sync.Once
	releaseOnce sync.Once
}

// NewGate returns a closed (holding) gate.
func NewGate() *Gate {
	return &Gate{reached: make(chan struct{}), released: make(chan struct{})}
}

// Reached is closed once a stream has arrived at the gate (every delta before
// the hold point has been written and flushed to Codex).
func (g *Gate) Reached() <-chan struct{} { return g.reached }

// Release lets held streams continue. It is safe to call more than once.
func (g *Gate) Release() { g.releaseOnce.Do(func() { close(g.released) }) }

func (g *Gate) arrive() { g.reachOnce.Do(func() { close(g.reached) }) }
