package serve

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge"
)

// The optional parts of an Agent that serve offers when it has them, checked
// by type assertion (the Codex bridge has all three).
type (
	// modelLister lists the models a session may switch to.
	modelLister interface {
		Models(context.Context) ([]acpbridge.Model, error)
	}
	// sessionModeler says which model and effort a session runs with.
	sessionModeler interface {
		SessionModel(context.Context, acp.SessionId) (model, effort string, err error)
	}
	// sessionLister answers session/list.
	sessionLister interface {
		ListSessions(context.Context, acp.ListSessionsRequest) (acp.ListSessionsResponse, error)
	}
)

// The config option ids, the same as codex-acp's, so a client that sets
// "model" or "reasoning_effort" there does the same here.
const (
	optionMode   acp.SessionConfigId = "mode"
	optionModel  acp.SessionConfigId = "model"
	optionEffort acp.SessionConfigId = "reasoning_effort"
)

// sessionConfig is what a client chose for one session: its mode, and the
// model and effort its turns run with. Only what the client set is sent
// with a turn (acpbridge.Prompt); the rest stays the agent's.
type sessionConfig struct {
	mode    acpbridge.Mode
	modeSet bool
	model   string // the session's, as the agent reported it or the client chose
	effort  string
	// chosen are the model and effort the client set, sent with each turn.
	chosenModel, chosenEffort string
	models                    []acpbridge.Model // what the agent offers; nil when it does not say
}

// newSessionConfig is a session's config before the client chose anything.
func (s *server) newSessionConfig(ctx context.Context, id acp.SessionId) *sessionConfig {
	c := &sessionConfig{mode: s.mode}
	if l, ok := s.agent.(modelLister); ok {
		ms, err := l.Models(ctx)
		if err != nil {
			s.log.Warn("list models", "err", err)
		}
		c.models = ms
	}
	if m, ok := s.agent.(sessionModeler); ok {
		model, effort, err := m.SessionModel(ctx, id)
		if err != nil {
			s.log.Warn("read the session's model", "session", id, "err", err)
		}
		c.model, c.effort = model, effort
		if m := c.find(model); m != nil {
			c.effort = cmp.Or(effort, m.DefaultEffort)
		}
	}
	return c
}

// apply adds the session's choices to a turn.
func (c *sessionConfig) apply(p *acpbridge.Prompt) {
	if c.modeSet {
		p.Mode = c.mode
	}
	p.Model, p.Effort = c.chosenModel, c.chosenEffort
}

// setMode switches the session's mode.
func (c *sessionConfig) setMode(id string) error {
	m, err := acpbridge.ParseMode(id)
	if err != nil {
		return err
	}
	c.mode, c.modeSet = m, true
	return nil
}

// setModel switches the session's model: one the agent offers, when it
// says which. An effort the client chose stays if the new model supports
// it; otherwise the session runs with the model's default.
func (c *sessionConfig) setModel(id string) error {
	if c.models != nil {
		m := c.find(id)
		if m == nil {
			return fmt.Errorf("unknown model %q: want one of %v", id, c.modelIDs())
		}
		// The model's default effort, unless the client chose one it
		// supports too.
		if c.chosenEffort == "" || !slices.Contains(m.Efforts, c.chosenEffort) {
			c.effort, c.chosenEffort = m.DefaultEffort, ""
		}
	}
	c.model, c.chosenModel = id, id
	return nil
}

// setEffort switches the reasoning effort: one the current model supports,
// when the agent says which.
func (c *sessionConfig) setEffort(e string) error {
	if m := c.find(c.model); m != nil && !slices.Contains(m.Efforts, e) {
		return fmt.Errorf("model %s does not support reasoning effort %q: want one of %v", c.model, e, m.Efforts)
	}
	c.effort, c.chosenEffort = e, e
	return nil
}

// set applies one session/set_config_option.
func (c *sessionConfig) set(id acp.SessionConfigId, value string) error {
	switch id {
	case optionMode:
		return c.setMode(value)
	case optionModel:
		return c.setModel(value)
	case optionEffort:
		return c.setEffort(value)
	}
	return fmt.Errorf("unknown config option %q: want mode, model or reasoning_effort", id)
}

func (c *sessionConfig) find(id string) *acpbridge.Model {
	for i := range c.models {
		if c.models[i].ID == id {
			return &c.models[i]
		}
	}
	return nil
}

func (c *sessionConfig) modelIDs() []string {
	ids := make([]string, 0, len(c.models))
	for _, m := range c.models {
		ids = append(ids, m.ID)
	}
	return ids
}

// modeDescriptions say what each mode lets the agent do, as a client shows it.
var modeDescriptions = map[acpbridge.Mode]string{
	acpbridge.ModeReadOnly:  "Read files; change nothing.",
	acpbridge.ModeWorkspace: "Edit the workspace; ask before anything beyond it.",
	acpbridge.ModeFull:      "No sandbox and no approvals.",
}

// modeState is session/new's and session/load's modes.
func (c *sessionConfig) modeState() *acp.SessionModeState {
	st := &acp.SessionModeState{CurrentModeId: acp.SessionModeId(c.mode)}
	for _, m := range acpbridge.Modes() {
		d := modeDescriptions[m]
		st.AvailableModes = append(st.AvailableModes, acp.SessionMode{Id: acp.SessionModeId(m), Name: string(m), Description: &d})
	}
	return st
}

// modelState is the (unstable) models field, for clients that still use
// session/set_model; nil when the agent lists no models.
func (c *sessionConfig) modelState() *acp.SessionModelState {
	if len(c.models) == 0 {
		return nil
	}
	st := &acp.SessionModelState{CurrentModelId: acp.ModelId(c.model)}
	for _, m := range c.models {
		st.AvailableModels = append(st.AvailableModels, acp.ModelInfo{ModelId: acp.ModelId(m.ID), Name: m.Name})
	}
	return st
}

// options are the session's config options: mode always, model and
// effort when the agent lists models.
func (c *sessionConfig) options() []acp.SessionConfigOption {
	var modes []acp.SessionConfigSelectOption
	for _, m := range acpbridge.Modes() {
		d := modeDescriptions[m]
		modes = append(modes, acp.SessionConfigSelectOption{Value: acp.SessionConfigValueId(m), Name: string(m), Description: &d})
	}
	out := []acp.SessionConfigOption{selectOption(optionMode, "Mode", acp.SessionConfigOptionCategoryMode, string(c.mode), modes)}
	if len(c.models) == 0 {
		return out
	}
	var models []acp.SessionConfigSelectOption
	for _, m := range c.models {
		models = append(models, acp.SessionConfigSelectOption{Value: acp.SessionConfigValueId(m.ID), Name: m.Name})
	}
	out = append(out, selectOption(optionModel, "Model", acp.SessionConfigOptionCategoryModel, c.model, models))
	if m := c.find(c.model); m != nil && len(m.Efforts) > 0 {
		var efforts []acp.SessionConfigSelectOption
		for _, e := range m.Efforts {
			efforts = append(efforts, acp.SessionConfigSelectOption{Value: acp.SessionConfigValueId(e), Name: e})
		}
		out = append(out, selectOption(optionEffort, "Reasoning effort", acp.SessionConfigOptionCategoryThoughtLevel, c.effort, efforts))
	}
	return out
}

func selectOption(id acp.SessionConfigId, name string, cat acp.SessionConfigOptionCategory, current string, values []acp.SessionConfigSelectOption) acp.SessionConfigOption {
	ungrouped := acp.SessionConfigSelectOptionsUngrouped(values)
	return acp.SessionConfigOption{Select: &acp.SessionConfigOptionSelect{
		Id: id, Name: name, Category: &cat, Type: "select",
		CurrentValue: acp.SessionConfigValueId(current),
		Options:      acp.SessionConfigSelectOptions{Ungrouped: &ungrouped},
	}}
}
