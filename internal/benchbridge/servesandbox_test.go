package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// The serve's-sandbox row sends the thread/start serve sent in the bench's
// serve setup (agent.codex.sandbox workspace-write, approval deny, no
// agent.sandbox entries), field for field: recorded from `wecodex serve`
// with strace, paths renamed into this layout. The row makes it with
// serve's own pieces (package sandbox, codex.ThreadConfig), so this also
// says when serve's profile changed: record it again then. The workspace
// root is under /tmp, so /tmp is not denied; the state directory does not
// exist, so it is not either.
func TestServeSandboxThreadIsServes(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "codex")
	home := filepath.Join(dir, "codex-home")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	serveDir := filepath.Join(dir, "serve-1")
	if err := os.Mkdir(serveDir, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_STATE_HOME", "")
	l, err := newServeLayout(serveDir, bin, "single:bench", map[string]string{"CODEX_HOME": home, "HOME": filepath.Join(dir, "home")})
	if err != nil {
		t.Fatal(err)
	}
	got, err := serveThread(l)
	if err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(serveDir, "workspaces", "single_bench-553547dfe97e")
	tmp := filepath.Join(serveDir, "workspaces", ".tmp", "single_bench-553547dfe97e")
	want := `{"cwd":"` + ws + `","approvalPolicy":"on-request","config":{"default_permissions":"wecodex","permissions":{"wecodex":{"filesystem":{` +
		`"/bin":"read","/etc":"read","/etc/gshadow":"deny","/etc/gshadow-":"deny","/etc/shadow":"deny","/etc/shadow-":"deny",` +
		`"/etc/ssh/ssh_host_*_key":"deny","/etc/ssl/private":"deny","/lib":"read","/lib32":"read","/lib64":"read","/sbin":"read",` +
		`"` + home + `":"deny","` + filepath.Join(serveDir, "wecodex.yaml") + `":"deny","` + tmp + `":"write","` + ws + `":"write",` +
		`"/usr":"read","/var/tmp":"deny","` + bin + `":"read",":minimal":"read"}}},` +
		`"shell_environment_policy":{"set":{"TMPDIR":"` + tmp + `"}}}}`
	var w any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(got)
	var g any
	_ = json.Unmarshal(b, &g)
	if _, err := os.Stat("/var/tmp"); err != nil {
		delete(w.(map[string]any)["config"].(map[string]any)["permissions"].(map[string]any)["wecodex"].(map[string]any)["filesystem"].(map[string]any), "/var/tmp")
	}
	if !reflect.DeepEqual(g, w) {
		t.Fatalf("thread/start\n%s\nwant serve's\n%s", b, want)
	}
}
