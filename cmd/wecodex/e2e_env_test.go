package main

import (
	"strings"
	"testing"
	"time"

	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/wecomtest"
)

// TestE2ECommandsSeeNoSecretOfServe: `wecodex serve` whose own environment
// holds its WeCom credentials and other services' secrets runs a user's
// `env` through the real Codex, and the output (as the model's next request
// receives it) shows none of them and no WECODEX_ name, while PATH, HOME and
// what agent.codex.env lists arrive: except a listed name that looks like a
// secret, which reaches Codex and not its commands.
func TestE2ECommandsSeeNoSecretOfServe(t *testing.T) {
	e := newE2E(t, sm.Sequence(
		sm.Reply(sm.ExecCommand("call_env", "env")),
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Listed.")),
	))
	secrets := map[string]string{
		// The same values as the config's, so the webhook still verifies.
		"WECODEX_WECOM_AIBOT_TOKEN":            e2eToken,
		"WECODEX_WECOM_AIBOT_ENCODING_AES_KEY": e2eAESKey,
		"WECODEX_WECOM_AIBOT_SECRET":           "secret-longconn-secret",
		"SOME_API_KEY":                         "secret-some-api-key",
		"FOO_TOKEN":                            "secret-foo-token",
		"DATABASE_URL":                         "postgres://u:secret-db-password@db",
	}
	for k, v := range secrets {
		e.env = append(e.env, k+"="+v)
	}
	e.env = append(e.env, "TZ=Asia/Shanghai",
		"WECODEX_AGENT_CODEX_ENV=LISTED_BY_ADMIN=from-agent-codex-env,PROVIDER_API_KEY=secret-provider-key")
	b := e.serve(t, "5m30s")
	ctx := within(t, 2*time.Minute)
	s, err := b.sim.Send(ctx, wecomtest.Message{From: "alice", Text: "run env"})
	if err != nil {
		t.Fatal(err)
	}
	if last, seen := follow(t, ctx, b.sim, s.ID); !strings.HasSuffix(last.Content, "Listed.") {
		t.Fatalf("final frame %q, want the answer; frames %q", last.Content, seen)
	}
	reqs := e.h.Server.ModelRequests()
	if len(reqs) != 2 {
		t.Fatalf("model requests = %d, want 2", len(reqs))
	}
	out, ok := reqs[1].CallOutput("call_env")
	if !ok || !strings.Contains(out, "Process exited with code 0") {
		t.Fatalf("env did not run: %q", out)
	}
	secrets["PROVIDER_API_KEY"] = "secret-provider-key"
	for k, v := range secrets {
		if strings.Contains(out, k) || strings.Contains(out, v) {
			t.Errorf("the command saw %s:\n%s", k, out)
		}
	}
	for _, leak := range []string{"WECODEX_", "CODEX_HOME=", e.h.Home} {
		if strings.Contains(out, leak) {
			t.Errorf("the command saw %q:\n%s", leak, out)
		}
	}
	vars := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			vars[k] = v
		}
	}
	for k, v := range map[string]string{"TZ": "Asia/Shanghai", "LISTED_BY_ADMIN": "from-agent-codex-env", "HOME": e.h.ShellHome} {
		if vars[k] != v {
			t.Errorf("%s = %q, want %q:\n%s", k, vars[k], v, out)
		}
	}
	if !strings.Contains(vars["PATH"], "/usr/bin") {
		t.Errorf("PATH = %q, want wecodex's", vars["PATH"])
	}
}
