package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSecretFilesInCheckConfigAndServe: check-config and serve read the
// _file keys alike, and refuse a missing file or a secret set twice with
// the same errors.
func TestSecretFilesInCheckConfigAndServe(t *testing.T) {
	dir := t.TempDir()
	token := filepath.Join(dir, "token")
	if err := os.WriteFile(token, []byte(e2eToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	key := filepath.Join(dir, "aes")
	if err := os.WriteFile(key, []byte(e2eAESKey), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing")
	good := writeConfig(t, "wecom:\n  aibot:\n    token_file: "+token+"\n    encoding_aes_key_file: "+key+"\n")
	bad := writeConfig(t, "wecom:\n  aibot:\n    token: t\n    token_file: "+token+"\n    encoding_aes_key_file: "+missing+"\n")
	if r := runBin(t, "check-config", "--config", good); r.code != 0 || r.stdout != "config OK\n" {
		t.Errorf("check-config of good files: exit %d, %q %q", r.code, r.stdout, r.stderr)
	}
	errors := "error: wecom.aibot.token_file: is set and so is wecom.aibot.token: set one of them (wecom.aibot.token_file names a file holding wecom.aibot.token)\n" +
		"error: wecom.aibot.encoding_aes_key_file: cannot read " + missing + ": no such file or directory\n"
	if r := runBin(t, "check-config", "--config", bad); r.code != 1 || r.stderr != errors+bad+": config has errors\n" {
		t.Errorf("check-config: exit %d, stderr:\n%s\nwant:\n%s", r.code, r.stderr, errors)
	}
	if r := runBin(t, "serve", "--config", bad); r.code != 1 || !strings.HasSuffix(r.stderr, errors) {
		t.Errorf("serve: exit %d, stderr:\n%s\nwant it to end with:\n%s", r.code, r.stderr, errors)
	}
}
