package configs

import (
	"sort"
	"strings"
)

// validateAgentEnv checks a map of variables given to the agent
// (agent.codex.env, agent.acp.env): each name must be one a process can
// have, and none may be wecodex's own. The agent runs what users type, and
// a WECODEX_ variable is wecodex's configuration, its secrets among them:
// it never reaches the agent, even when an admin lists it.
func validateAgentEnv(key string, env map[string]string, add func(key, format string, args ...any)) {
	names := make([]string, 0, len(env))
	for name := range env {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		switch {
		case !envName(name):
			add(key, "%q is not an environment variable name: use letters, digits and _, not starting with a digit", name)
		case strings.HasPrefix(name, EnvPrefix):
			add(key+"."+name, "is one of wecodex's own variables (its configuration and secrets), which never reach the agent; remove it from %s", key)
		case key == "agent.codex.env" && name == "CODEX_HOME":
			add(key+"."+name, "set agent.codex.home instead: it is the CODEX_HOME wecodex runs Codex with")
		}
	}
}

// envName reports whether name is a portable environment variable name.
func envName(name string) bool {
	if name == "" || (name[0] >= '0' && name[0] <= '9') {
		return false
	}
	for _, r := range name {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}
