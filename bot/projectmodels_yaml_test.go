package bot_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/internal/chattest"
	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
)

// editedModels is modelProjects whose lists an admin may change mid-test,
// as an edited YAML would after a restart.
type editedModels struct {
	modelProjects
	mu   sync.Mutex
	over map[string][]string
}

func (p *editedModels) Models(project string) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if l, ok := p.over[project]; ok {
		return l
	}
	return p.modelProjects.Models(project)
}

func (p *editedModels) set(project string, list []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.over = map[string][]string{project: list}
}

// A choice the admin's edited list no longer offers is not run, in the
// same thread too: api (no model default) drops other, and the next model
// request names Codex's default, which the thread would otherwise not go
// back to (a thread keeps the model its last turn/start named).
func TestEditedProjectModelsDropTheChoice(t *testing.T) {
	var ed *editedModels
	r := projectModelsRig(t, sm.Sequence(
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, "one")),
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, "two")),
	), func(p modelProjects) bot.Projects { ed = &editedModels{modelProjects: p}; return ed })
	dm := chattest.DM("alice")
	r.say(t, "m1", dm, "alice", "/model other")
	r.turn(t, "t1", dm, "alice", "first")
	ed.set("api", []string{"gpt-5.5"})
	r.turn(t, "t2", dm, "alice", "second")
	var got []string
	for _, req := range r.h.Server.ModelRequests() {
		got = append(got, req.Model)
	}
	// gpt-6.2-sol is the model the pinned Codex's model/list marks default.
	if want := []string{"other", "gpt-6.2-sol"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("model requests named %q, want %q", got, want)
	}
	status := r.say(t, "s1", dm, "alice", "/status")
	if want := "\n- model: `other` (this conversation's, not offered here: its turns use the project's default, else Codex's)\n"; !strings.Contains(status, want) {
		t.Errorf("/status after the edit = %q, want it to say %q", status, want)
	}
}
