package configs

import "testing"

// agent.codex.continue_interrupted is on unless the file or the
// environment turns it off.
func TestContinueInterrupted(t *testing.T) {
	for _, tt := range []struct {
		name, yaml, env string
		want            bool
	}{
		{"default", "agent:\n  kind: codex\n", "", true},
		{"file off", "agent:\n  codex:\n    continue_interrupted: false\n", "", false},
		{"env off", "agent:\n  kind: codex\n", "false", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.env != "" {
				t.Setenv("WECODEX_AGENT_CODEX_CONTINUE_INTERRUPTED", tt.env)
			}
			cfg, _, err := Load(writeConfig(t, tt.yaml))
			if err != nil {
				t.Fatal(err)
			}
			if got := cfg.Agent.Codex.ContinueInterrupted; got != tt.want {
				t.Errorf("continue_interrupted = %v, want %v", got, tt.want)
			}
		})
	}
}
