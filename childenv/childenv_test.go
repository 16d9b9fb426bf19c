package childenv

import (
	"bytes"
	"log/slog"
	"reflect"
	"strings"
	"testing"
)

func TestFilterKeepsOnlyTheAllowList(t *testing.T) {
	environ := []string{
		"PATH=/usr/bin", "HOME=/srv/wecodex", "USER=wecodex", "LOGNAME=wecodex", "SHELL=/bin/bash",
		"LANG=C.UTF-8", "LC_ALL=C.UTF-8", "LC_CTYPE=C.UTF-8", "TZ=Asia/Shanghai", "TMPDIR=/var/tmp",
		"HTTPS_PROXY=http://proxy:3128", "https_proxy=http://proxy:3128", "NO_PROXY=localhost", "no_proxy=localhost",
		"HTTP_PROXY=http://proxy:3128", "http_proxy=http://proxy:3128", "ALL_PROXY=socks5://proxy", "all_proxy=socks5://proxy",
		"SSL_CERT_FILE=/etc/ca.pem", "SSL_CERT_DIR=/etc/ssl/certs", "NODE_EXTRA_CA_CERTS=/etc/ca.pem", "CODEX_CA_CERTIFICATE=/etc/ca.pem",
		"CODEX_HOME=/srv/codex",
		// Everything below stays behind.
		"WECODEX_WECOM_AIBOT_TOKEN=tok", "WECODEX_REDIS_PASSWORD=pw", "WECODEX_WECOM_AIBOT_TOKEN_FILE=/run/t",
		"SOME_API_KEY=k", "FOO_TOKEN=t", "AWS_SECRET_ACCESS_KEY=s", "DATABASE_URL=postgres://u:p@db",
		"CODEX_MANAGED_BY_NPM=1", "PATHEXT=.exe", "XHOME=x", "lang=lower", "NOEQUALS", "=odd",
		"WECODEX_WECOM_AIBOT_TOKEN=again",
	}
	kept, dropped := Filter(environ)
	if want := environ[:23]; !reflect.DeepEqual(kept, want) {
		t.Errorf("kept:\n %q\nwant\n %q", kept, want)
	}
	want := []string{"", "AWS_SECRET_ACCESS_KEY", "CODEX_MANAGED_BY_NPM", "DATABASE_URL", "FOO_TOKEN", "NOEQUALS", "PATHEXT",
		"SOME_API_KEY", "WECODEX_REDIS_PASSWORD", "WECODEX_WECOM_AIBOT_TOKEN", "WECODEX_WECOM_AIBOT_TOKEN_FILE", "XHOME", "lang"}
	if !reflect.DeepEqual(dropped, want) {
		t.Errorf("dropped:\n %q\nwant\n %q", dropped, want)
	}
}

func TestWecodexVariablesAreNeverAllowed(t *testing.T) {
	for _, name := range []string{"WECODEX_REDIS_PASSWORD", "WECODEX_", "WECODEX_PATH"} {
		if Allowed(name) || !Refused(name) {
			t.Errorf("%s: Allowed %v, Refused %v; want refused", name, Allowed(name), Refused(name))
		}
	}
	for _, p := range Patterns() {
		if Refused(strings.TrimSuffix(p, "*")) {
			t.Errorf("pattern %q lets a WECODEX_ variable through", p)
		}
	}
	if Refused("CODEX_HOME") || Refused("PATH") {
		t.Error("Refused reaches beyond WECODEX_")
	}
}

func TestInheritLogsNamesNeverValues(t *testing.T) {
	t.Setenv("WECODEX_REDIS_PASSWORD", "hunter2-value")
	t.Setenv("SOME_API_KEY", "sk-value")
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	env := Inherit(log, "codex app-server")
	for _, kv := range env {
		if strings.Contains(kv, "value") {
			t.Errorf("Inherit passed %q", kv)
		}
	}
	out := buf.String()
	if !strings.Contains(out, "WECODEX_REDIS_PASSWORD") || !strings.Contains(out, "SOME_API_KEY") || !strings.Contains(out, `child="codex app-server"`) {
		t.Errorf("debug line does not name the child and the variables left out: %s", out)
	}
	if strings.Contains(out, "hunter2") || strings.Contains(out, "sk-value") {
		t.Errorf("debug line shows a value: %s", out)
	}
}

func TestCommandPatternsLeaveOutWhatOnlyTheAgentNeeds(t *testing.T) {
	got := strings.Join(CommandPatterns(), " ")
	want := "PATH HOME USER LOGNAME SHELL LANG LANGUAGE LC_* TZ TMPDIR HTTP_PROXY HTTPS_PROXY NO_PROXY ALL_PROXY " +
		"http_proxy https_proxy no_proxy all_proxy SSL_CERT_FILE SSL_CERT_DIR NODE_EXTRA_CA_CERTS"
	if got != want {
		t.Errorf("CommandPatterns() = %s\nwant %s", got, want)
	}
	if n := len(Patterns()); n != len(CommandPatterns())+2 {
		t.Errorf("Patterns() has %d entries, want CommandPatterns' and CODEX_HOME, CODEX_CA_CERTIFICATE", n)
	}
}
