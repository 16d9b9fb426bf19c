package configs

import (
	"fmt"
	"strings"
)

// ChatEfforts are the efforts /effort offers (bot.Efforts; pinned in
// cmd/wecodex), a part of ReasoningEfforts.
var ChatEfforts = []string{"low", "medium", "high"}

// validateModels checks agent.models or a project's models (named by
// list): model names, each once.
func validateModels(list string, models []string, add func(key, format string, args ...any)) {
	seen := map[string]bool{}
	for i, m := range models {
		key := fmt.Sprintf("%s[%d]", list, i)
		switch {
		case strings.TrimSpace(m) == "":
			add(key, "is empty: name a model Codex lists (model/list), e.g. gpt-5.5")
		case strings.ContainsAny(m, " \t\n"):
			add(key, "must be a model's name, without spaces, not %q", m)
		case seen[m]:
			add(key, "names %q a second time", m)
		}
		seen[m] = true
	}
}
