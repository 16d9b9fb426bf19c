package main

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"

	"github.com/wecodex/wecodex/configs"
)

// notLoggedIn is the /readyz agent_warnings entry and the start warning for
// a CODEX_HOME Codex cannot answer from.
const notLoggedIn = "Codex is not logged in: run `wecodex codex-login --config <this config>` (make login) as the service's user"

// codexLoggedIn says whether Codex has something to answer with in home:
// a login (`codex login` writes auth.json), or a model provider of its own
// (model_provider in home's config.toml or in agent.codex.config), whose
// key, if any, comes from its environment. It reads files only: no request.
func codexLoggedIn(c configs.CodexConfig, home string) bool {
	if _, err := os.Stat(filepath.Join(home, "auth.json")); err == nil {
		return true
	}
	if _, ok := c.Config["model_provider"]; ok {
		return true
	}
	f, err := os.Open(filepath.Join(home, "config.toml"))
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			return false // model_provider is a top-level key
		}
		if k, _, ok := strings.Cut(line, "="); ok && strings.TrimSpace(k) == "model_provider" {
			return true
		}
	}
	return false
}
