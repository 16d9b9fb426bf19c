package configs

import (
	"fmt"
	"sort"
	"strings"
)

// validateAgentEnv checks a map of variables given to the agent
// (agent.codex.env, agent.acp.env, and their _file twins): each name must
// be one a process can have, and none may be wecodex's own. The agent runs
// what users type, and a WECODEX_ variable is wecodex's configuration, its
// secrets among them: it never reaches the agent, even when an admin lists
// it.
func validateAgentEnv(key string, env map[string]string, add func(key, format string, args ...any)) {
	names := make([]string, 0, len(env))
	for name := range env {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if k, msg := agentEnvProblem(key, name); msg != "" {
			add(k, "%s", msg)
		}
	}
}

// agentEnvProblem says what is wrong with the variable name in the map at
// key, and under which key to report it; msg is "" for a good name.
func agentEnvProblem(key, name string) (at, msg string) {
	switch {
	case !envName(name):
		return key, fmt.Sprintf("%q is not an environment variable name: use letters, digits and _, not starting with a digit", name)
	case strings.HasPrefix(name, EnvPrefix):
		return key + "." + name, "is one of wecodex's own variables (its configuration and secrets), which never reach the agent; remove it from " + key
	case strings.HasPrefix(key, "agent.codex.env") && name == "CODEX_HOME":
		return key + "." + name, "set agent.codex.home instead: it is the CODEX_HOME wecodex runs Codex with"
	}
	return "", ""
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
