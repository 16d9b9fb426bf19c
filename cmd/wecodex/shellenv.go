package main

import (
	"encoding/json"
	"maps"
	"slices"

	"github.com/wecodex/wecodex/childenv"
	"github.com/wecodex/wecodex/configs"
)

// withCommandEnvPolicy returns agent.codex.config with Codex's
// shell_environment_policy for the commands it runs for the bot's users
// under it, as -c overrides: they inherit from the app-server only the
// allow-list (childenv.CommandPatterns) and the names of agent.codex.env,
// never one that came from agent.codex.env_file (a secret), nor a name that
// looks like a secret (Codex's default excludes *KEY*, *SECRET*, *TOKEN*,
// which its own default switches off), nor a WECODEX_ one, even should the
// app-server's environment hold them. A key the admin sets in
// agent.codex.config wins over the same key here.
func withCommandEnvPolicy(c configs.CodexConfig) map[string]string {
	names := childenv.CommandPatterns()
	exclude := []string{"WECODEX_*"}
	for _, name := range slices.Sorted(maps.Keys(c.Env)) {
		if _, secret := c.EnvFile[name]; secret {
			exclude = append(exclude, name)
		} else {
			names = append(names, name)
		}
	}
	out := map[string]string{
		"shell_environment_policy.inherit":                 "all",
		"shell_environment_policy.ignore_default_excludes": "false",
		"shell_environment_policy.exclude":                 tomlStrings(exclude...),
		"shell_environment_policy.include_only":            tomlStrings(names...),
	}
	maps.Copy(out, c.Config)
	return out
}

// tomlStrings is a TOML array of strings (a JSON array of strings is one).
func tomlStrings(s ...string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
