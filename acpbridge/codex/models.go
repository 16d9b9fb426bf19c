package codex

import (
	"context"
	"fmt"

	"github.com/wecodex/wecodex/acpbridge"
)

// Model is one model Codex offers (model/list).
type Model = acpbridge.Model

type modelListParams struct {
	Cursor string `json:"cursor,omitempty"`
}

type modelListResponse struct {
	Data []struct {
		ID                        string `json:"id"`
		Model                     string `json:"model"`
		DisplayName               string `json:"displayName"`
		IsDefault                 bool   `json:"isDefault"`
		DefaultReasoningEffort    string `json:"defaultReasoningEffort"`
		SupportedReasoningEfforts []struct {
			ReasoningEffort string `json:"reasoningEffort"`
		} `json:"supportedReasoningEfforts"`
	} `json:"data"`
	NextCursor string `json:"nextCursor"`
}

// maxModelPages bounds model/list's paging against a server that never
// stops handing out cursors.
const maxModelPages = 20

// Models lists the models the app-server offers, every page of them.
func (a *Agent) Models(ctx context.Context) ([]Model, error) {
	c, _, err := a.ensureConn(ctx)
	if err != nil {
		return nil, err
	}
	var out []Model
	cursor := ""
	for range maxModelPages {
		var r modelListResponse
		if err := c.call(ctx, "model/list", modelListParams{Cursor: cursor}, &r); err != nil {
			return nil, fmt.Errorf("codex model/list: %w", err)
		}
		for _, m := range r.Data {
			id := m.Model
			if id == "" {
				id = m.ID
			}
			mod := Model{ID: id, Name: m.DisplayName, Default: m.IsDefault, DefaultEffort: m.DefaultReasoningEffort}
			for _, e := range m.SupportedReasoningEfforts {
				mod.Efforts = append(mod.Efforts, e.ReasoningEffort)
			}
			out = append(out, mod)
		}
		if r.NextCursor == "" {
			return out, nil
		}
		cursor = r.NextCursor
	}
	return out, nil
}
