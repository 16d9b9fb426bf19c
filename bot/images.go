package bot

import (
	"slices"
	"sync"
)

// producedImages are the pictures one turn's agent produced or looked at,
// in order, each once; the agent's read loop adds, the turn reads at its end.
type producedImages struct {
	mu    sync.Mutex
	paths []string
}

func (p *producedImages) add(path string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !slices.Contains(p.paths, path) {
		p.paths = append(p.paths, path)
	}
}

func (p *producedImages) list() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.paths)
}
