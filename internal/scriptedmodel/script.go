package scriptedmodel

import (
	"fmt"
	"sort"
	"strings"
	"sync"
)

// Script decides the reply to each `POST /v1/responses`. Next is called with
// the parsed request (from any number of goroutines at once); an error makes
// the server answer HTTP 500 with the error text and record it, so a test sees
// an unscripted request instead of hanging.
type Script interface {
	Next(req *Request) (Response, error)
}

// ScriptFunc adapts a function to [Script].
type ScriptFunc func(req *Request) (Response, error)

// Next calls f.
func (f ScriptFunc) Next(req *Request) (Response, error) { return f(req) }

// Sequence is a script whose Nth request gets the Nth response; a request past
// the end is an error.
func Sequence(responses ...Response) Script {
	return &sequence{responses: responses}
}

type sequence struct {
	mu        sync.Mutex
	responses []Response
	next      int
}

func (s *sequence) Next(req *Request) (Response, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.next >= len(s.responses) {
		s.next++
		return Response{}, fmt.Errorf("scriptedmodel: request %d has no scripted response (script has %d; latest user message %q)",
			s.next, len(s.responses), clip(req.UserText, 80))
	}
	r := s.responses[s.next]
	s.next++
	return r, nil
}

// ByPrompt is a script that picks the reply by the latest user message: the
// key that is a substring of it names a sequence, and each request matching
// that key gets the next response of its sequence. It lets several
// conversations stream at once through one Codex, each with its own script.
// A request matching no key, or more than one, or past the end of its
// sequence, is an error.
func ByPrompt(scripts map[string][]Response) Script {
	p := &byPrompt{seqs: make(map[string]*sequence, len(scripts))}
	for k, rs := range scripts {
		p.keys = append(p.keys, k)
		p.seqs[k] = &sequence{responses: rs}
	}
	sort.Strings(p.keys)
	return p
}

type byPrompt struct {
	keys []string // sorted, for stable error messages
	seqs map[string]*sequence
}

func (p *byPrompt) Next(req *Request) (Response, error) {
	var matched []string
	for _, k := range p.keys {
		if strings.Contains(req.UserText, k) {
			matched = append(matched, k)
		}
	}
	switch len(matched) {
	case 0:
		return Response{}, fmt.Errorf("scriptedmodel: latest user message %q matches no scripted prompt (have %q)",
			clip(req.UserText, 80), p.keys)
	case 1:
		r, err := p.seqs[matched[0]].Next(req)
		if err != nil {
			return Response{}, fmt.Errorf("prompt %q: %w", matched[0], err)
		}
		return r, nil
	default:
		return Response{}, fmt.Errorf("scriptedmodel: latest user message %q matches several scripted prompts %q",
			clip(req.UserText, 80), matched)
	}
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
