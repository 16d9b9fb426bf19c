package codex

import (
	"strings"
	"testing"

	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
)

// serviceSecrets is what a service manager may leave in wecodex's
// environment: its own configuration and secrets, and anyone else's.
var serviceSecrets = map[string]string{
	"WECODEX_WECOM_AIBOT_TOKEN":            "secret-aibot-token",
	"WECODEX_WECOM_AIBOT_ENCODING_AES_KEY": "secret-aibot-aes-key",
	"WECODEX_REDIS_PASSWORD":               "secret-redis-password",
	"SOME_API_KEY":                         "secret-some-api-key",
	"FOO_TOKEN":                            "secret-foo-token",
	"DATABASE_URL":                         "postgres://u:secret-db-password@db",
}

// TestAppServerEnvironmentIsAllowListed: a real command run by the real
// Codex sees none of wecodex's environment beyond the allow-list (as the
// model's next request receives the command's output), while what is on it
// (TZ) and what the caller gives (Options.Env) arrives.
func TestAppServerEnvironmentIsAllowListed(t *testing.T) {
	for k, v := range serviceSecrets {
		t.Setenv(k, v)
	}
	t.Setenv("TZ", "Asia/Shanghai")
	ctx := testCtx(t)
	a, h := newAgent(t, sm.Sequence(
		sm.Reply(sm.ExecCommand("call_env", "env")),
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Listed.")),
	), sm.HomeOptions{}, Options{Env: []string{"GIVEN_BY_CALLER=yes"}})
	id, err := a.NewSession(ctx, h.Workspace)
	if err != nil {
		t.Fatal(err)
	}
	prompt(t, ctx, a, id, "Run env.")
	reqs := h.Server.ModelRequests()
	if len(reqs) != 2 {
		t.Fatalf("model requests = %d, want 2", len(reqs))
	}
	out, ok := reqs[1].CallOutput("call_env")
	if !ok {
		t.Fatal("the second request has no output for call_env")
	}
	checkEnvOutput(t, out, map[string]string{"TZ": "Asia/Shanghai", "GIVEN_BY_CALLER": "yes", "HOME": h.ShellHome})
}

// checkEnvOutput fails t when the output of `env` shows a service secret or
// any WECODEX_ variable, lacks PATH, or lacks one of want.
func checkEnvOutput(t *testing.T, out string, want map[string]string) {
	t.Helper()
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
	if !strings.Contains(vars["PATH"], "/usr/bin") {
		t.Errorf("PATH = %q, want wecodex's", vars["PATH"])
	}
	for k, v := range want {
		if vars[k] != v {
			t.Errorf("%s = %q, want %q:\n%s", k, vars[k], v, out)
		}
	}
}
