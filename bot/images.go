package bot

import (
	"slices"
	"sync"
)

// producedImages are the pictures one turn's agent produced or looked at,
// in order, each once; the agent's read loop adds, the turn reads at its end.
// Viewed ones (paths) are sent only from the workspace; generated ones are
// what the agent's image tool saved (acpbridge.GeneratedImagePath), sent
// only from Config.GeneratedImages.
type producedImages struct {
	mu        sync.Mutex
	paths     []string
	generated []string
}

func (p *producedImages) add(path string) { p.addTo(&p.paths, path) }

func (p *producedImages) addGenerated(path string) { p.addTo(&p.generated, path) }

func (p *producedImages) addTo(list *[]string, path string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !slices.Contains(*list, path) {
		*list = append(*list, path)
	}
}

// lists returns the viewed and the generated pictures.
func (p *producedImages) lists() (viewed, generated []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.paths), slices.Clone(p.generated)
}
