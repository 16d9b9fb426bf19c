package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/wecodex/wecodex/configs"
)

// codexEnv makes the CODEX_HOME wecodex runs Codex with (configs.CodexHome)
// and returns the environment entry that hands it to Codex. Codex refuses a
// CODEX_HOME that does not exist, so it is created (private: it holds the
// login).
func codexEnv(c configs.CodexConfig) ([]string, error) {
	home := c.CodexHome(os.Getenv)
	if home == "" {
		return nil, errors.New("agent.codex.home: no state directory is known (neither HOME nor XDG_STATE_HOME is set); set agent.codex.home")
	}
	if err := os.MkdirAll(home, 0o700); err != nil {
		return nil, fmt.Errorf("agent.codex.home: create %s: %w", home, err)
	}
	return []string{"CODEX_HOME=" + home}, nil
}
