package main

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge"
	"github.com/wecodex/wecodex/acpbridge/codex"
	"github.com/wecodex/wecodex/cli"
	"github.com/wecodex/wecodex/configs"
	"github.com/wecodex/wecodex/internal/codextest"
	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
)

// TestCommandEnvPolicyHoldsWhenCodexHasSecrets: with wecodex's shell policy
// the real Codex passes its commands neither a name that looks like a secret
// nor one from agent.codex.env_file nor a WECODEX_ one nor CODEX_HOME, even
// when its own environment holds them (here given to it directly, past the
// allow-list), and still passes PATH, HOME and the names agent.codex.env
// lists.
func TestCommandEnvPolicyHoldsWhenCodexHasSecrets(t *testing.T) {
	h := codextest.Start(t, sm.Sequence(
		sm.Reply(sm.ExecCommand("call_env", "env")),
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Listed.")),
	))
	// As Load leaves them: env_file's values are in Env too.
	c := configs.CodexConfig{Home: h.Home,
		Env:     map[string]string{"LISTED_BY_ADMIN": "from-agent-codex-env", "PROVIDER_API_KEY": "secret-provider-key", "PROVIDER_PASS": "secret-from-file"},
		EnvFile: map[string]string{"PROVIDER_PASS": "/run/credentials/wecodex.service/provider_pass"},
	}
	env, err := cli.CodexEnv(c)
	if err != nil {
		t.Fatal(err)
	}
	secrets := []string{"WECODEX_WECOM_AIBOT_TOKEN=secret-aibot-token", "WECODEX_REDIS_PASSWORD=secret-redis-password",
		"SOME_API_KEY=secret-some-api-key", "FOO_TOKEN=secret-foo-token", "AWS_SECRET_ACCESS_KEY=secret-aws"}
	a := codex.New(codex.Options{
		Bin:    h.Bin,
		Config: withCommandEnvPolicy(c),
		Env:    append(append(env, "HOME="+h.ShellHome), secrets...),
	})
	t.Cleanup(func() { _ = a.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	id, err := a.NewSession(ctx, h.Workspace)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Prompt(ctx, id, acpbridge.TextPrompt("Run env."), discardSink{}); err != nil {
		t.Fatal(err)
	}
	reqs := h.Server.ModelRequests()
	if len(reqs) != 2 {
		t.Fatalf("model requests = %d, want 2", len(reqs))
	}
	out, ok := reqs[1].CallOutput("call_env")
	if !ok || !strings.Contains(out, "Process exited with code 0") {
		t.Fatalf("env did not run: %q", out)
	}
	for _, leak := range append(secrets, "WECODEX_", "CODEX_HOME=", h.Home, "PROVIDER_API_KEY", "PROVIDER_PASS", "secret-") {
		name, _, _ := strings.Cut(leak, "=")
		if strings.Contains(out, name) {
			t.Errorf("the command saw %q:\n%s", name, out)
		}
	}
	vars := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			vars[k] = v
		}
	}
	if vars["LISTED_BY_ADMIN"] != "from-agent-codex-env" || vars["HOME"] != h.ShellHome || !strings.Contains(vars["PATH"], "/usr/bin") {
		t.Errorf("LISTED_BY_ADMIN %q, HOME %q, PATH %q: want agent.codex.env's, the harness's and wecodex's:\n%s",
			vars["LISTED_BY_ADMIN"], vars["HOME"], vars["PATH"], out)
	}
}

// discardSink keeps nothing and decides nothing: the turn runs no command
// that asks.
type discardSink struct{}

func (discardSink) RequestPermission(context.Context, acp.RequestPermissionRequest) acp.RequestPermissionResponse {
	return acpbridge.Cancelled()
}

func (discardSink) Update(acp.SessionUpdate) {}
func (discardSink) Notice(acpbridge.Notice)  {}

// TestCommandEnvPolicyOverrides: the policy as Codex's -c overrides, the
// admin's own agent.codex.config keys winning.
func TestCommandEnvPolicyOverrides(t *testing.T) {
	got := withCommandEnvPolicy(configs.CodexConfig{
		Config:  map[string]string{"model": "gpt-5", "shell_environment_policy.inherit": "core"},
		Env:     map[string]string{"ZED": "1", "GOPROXY": "off", "PASS": "from a file"},
		EnvFile: map[string]string{"PASS": "/run/secrets/pass"},
	})
	want := map[string]string{
		"model":                            "gpt-5",
		"shell_environment_policy.inherit": "core",
		"shell_environment_policy.ignore_default_excludes": "false",
		"shell_environment_policy.exclude":                 `["WECODEX_*","PASS"]`,
		"shell_environment_policy.include_only": `["PATH","HOME","USER","LOGNAME","SHELL","LANG","LANGUAGE","LC_*","TZ","TMPDIR",` +
			`"HTTP_PROXY","HTTPS_PROXY","NO_PROXY","ALL_PROXY","http_proxy","https_proxy","no_proxy","all_proxy",` +
			`"SSL_CERT_FILE","SSL_CERT_DIR","NODE_EXTRA_CA_CERTS","GOPROXY","ZED"]`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("overrides:\n got %q\nwant %q", got, want)
	}
}

// TestCodexEnvListsHomeThenAgentCodexEnv: what Codex gets beyond the
// allow-list, in a stable order.
func TestCodexEnvListsHomeThenAgentCodexEnv(t *testing.T) {
	home := t.TempDir()
	got, err := cli.CodexEnv(configs.CodexConfig{Home: home, Env: map[string]string{"ZED": "1", "GOPROXY": "off"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"CODEX_HOME=" + home, "GOPROXY=off", "ZED=1"}; !reflect.DeepEqual(got, want) {
		t.Errorf("codexEnv = %q, want %q", got, want)
	}
}
