package external_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/wecodex/wecodex/acpbridge"
	"github.com/wecodex/wecodex/acpbridge/internal/bridgetest"
	"github.com/wecodex/wecodex/internal/codextest"
	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
)

// serviceSecrets is what a service manager may leave in wecodex's
// environment: its own configuration and secrets, and anyone else's.
var serviceSecrets = map[string]string{
	"WECODEX_WECOM_AIBOT_TOKEN":  "secret-aibot-token",
	"WECODEX_WECOM_AIBOT_SECRET": "secret-longconn-secret",
	"WECODEX_REDIS_PASSWORD":     "secret-redis-password",
	"SOME_API_KEY":               "secret-some-api-key",
	"FOO_TOKEN":                  "secret-foo-token",
}

// TestRealAgentsEnvironmentIsAllowListed: a command a published agent runs
// for a user sees none of wecodex's environment beyond the allow-list (as
// the model's next request receives its output), while what is on it (TZ)
// and what agent.acp.env lists arrives.
func TestRealAgentsEnvironmentIsAllowListed(t *testing.T) {
	for k, v := range serviceSecrets {
		t.Setenv(k, v)
	}
	t.Setenv("TZ", "Asia/Shanghai")
	for _, agent := range realAgents {
		t.Run(agent.name, func(t *testing.T) {
			h := codextest.Start(t, answeringTitles(sm.Sequence(
				sm.Reply(sm.ExecCommand("call_env", "env")),
				sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Listed.")),
			)))
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			a, _ := startRealAgent(t, ctx, agent, h, "LISTED_BY_ADMIN=from-agent-acp-env")
			id, err := a.NewSession(ctx, h.Workspace)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := a.Prompt(ctx, id, acpbridge.TextPrompt("Run env."), &bridgetest.Recorder{}); err != nil {
				t.Fatal(err)
			}
			var out string
			for _, r := range h.Server.ModelRequests() {
				if o, ok := r.CallOutput("call_env"); ok {
					out = o
				}
			}
			if !strings.Contains(out, "Process exited with code 0") {
				t.Fatalf("env did not run:\n%s", out)
			}
			vars := map[string]string{}
			for _, line := range strings.Split(out, "\n") {
				if k, v, ok := strings.Cut(line, "="); ok {
					vars[k] = v
				}
			}
			for k, v := range serviceSecrets {
				if strings.Contains(out, k) || strings.Contains(out, v) {
					t.Errorf("the command saw %s:\n%s", k, out)
				}
			}
			if strings.Contains(out, "WECODEX_") {
				t.Errorf("the command saw a WECODEX_ variable:\n%s", out)
			}
			for k, v := range map[string]string{"TZ": "Asia/Shanghai", "LISTED_BY_ADMIN": "from-agent-acp-env", "HOME": h.ShellHome} {
				if vars[k] != v {
					t.Errorf("%s = %q, want %q:\n%s", k, vars[k], v, out)
				}
			}
			if !strings.Contains(vars["PATH"], "/usr/bin") {
				t.Errorf("PATH = %q, want wecodex's", vars["PATH"])
			}
		})
	}
}
