package main

import (
	"testing"

	"github.com/wecodex/wecodex/configs"
)

// TestGeneratedImagesDir: the engine sends back generated pictures from
// CODEX_HOME/generated_images for the codex agent only; another agent's
// reports of such pictures name no directory, so none is sent.
func TestGeneratedImagesDir(t *testing.T) {
	var cfg configs.Config
	cfg.Agent.Kind = configs.AgentCodex
	cfg.Agent.Codex.Home = "/srv/codex-home"
	if got := generatedImagesDir(&cfg); got != "/srv/codex-home/generated_images" {
		t.Errorf("codex agent: %q, want /srv/codex-home/generated_images", got)
	}
	cfg.Agent.Kind = configs.AgentACP
	if got := generatedImagesDir(&cfg); got != "" {
		t.Errorf("acp agent: %q, want none", got)
	}
}
