package cli

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"

	"github.com/wecodex/wecodex/configs"
)

// CodexEnv makes the CODEX_HOME wecodex runs Codex with (configs.CodexHome)
// and returns what Codex gets beyond the allow-listed part of wecodex's
// environment: that CODEX_HOME first, then agent.codex.env in name order.
// Codex refuses a CODEX_HOME that does not exist, so it is created
// (private: it holds the login).
func CodexEnv(c configs.CodexConfig) ([]string, error) {
	home := c.CodexHome(os.Getenv)
	if home == "" {
		return nil, errors.New("agent.codex.home: no state directory is known (neither HOME nor XDG_STATE_HOME is set); set agent.codex.home")
	}
	if err := os.MkdirAll(home, 0o700); err != nil {
		return nil, fmt.Errorf("agent.codex.home: create %s: %w", home, err)
	}
	env := []string{"CODEX_HOME=" + home}
	for _, name := range slices.Sorted(maps.Keys(c.Env)) {
		env = append(env, name+"="+c.Env[name])
	}
	return env, nil
}
