package main

import (
	"reflect"
	"testing"

	"github.com/wecodex/wecodex/configs"
	"github.com/wecodex/wecodex/projects"
)

// projects.<name>.models and .model reach the engine (bot.ProjectModels),
// and Codex's default model is agent.codex.config's model when set (its
// TOML quotes dropped), without asking Codex.
func TestProjectModelsReachTheEngine(t *testing.T) {
	p := projectOf(configs.ProjectConfig{Name: "api", Path: t.TempDir(), Model: "b", Models: []string{"a", "b"}})
	reg, err := projects.New([]projects.Project{p}, projects.Options{WorkspaceRoot: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	e := engineProjects{reg}
	if got := e.Models("api"); !reflect.DeepEqual(got, []string{"a", "b"}) {
		t.Errorf("Models(api) = %q, want [a b]", got)
	}
	if got := e.Model("api"); got != "b" {
		t.Errorf("Model(api) = %q, want b", got)
	}
	cfg := configs.Default()
	cfg.Agent.Codex.Config = map[string]string{"model": `"gpt-5"`}
	if got, err := codexDefaultModel(t.Context(), cfg, nil); got != "gpt-5" || err != nil {
		t.Errorf("codexDefaultModel = %q, %v; want gpt-5", got, err)
	}
}
