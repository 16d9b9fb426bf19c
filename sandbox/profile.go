package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/wecodex/wecodex/acpbridge/codex"
)

// checkCodexProfile refuses a Codex configuration that would widen the
// profile wecodex confines threads with: Codex merges config layers table by
// table, so a [permissions.wecodex] of CODEX_HOME/config.toml or of
// agent.codex.config would add its entries to the ones each thread is sent.
// (sandbox_mode, [sandbox_workspace_write] and default_permissions need no
// check: the per-thread profile outranks them.)
func checkCodexProfile(home string, overrides map[string]string) error {
	prefix := "permissions." + codex.ProfileID
	for k := range overrides {
		if k == "permissions" || k == prefix || strings.HasPrefix(k, prefix+".") {
			return fmt.Errorf("agent.codex.config.%s: wecodex sends its own permission profile %q with every thread, and Codex would merge this into it; remove it (agent.sandbox says what conversations reach)", k, codex.ProfileID)
		}
	}
	path := filepath.Join(home, "config.toml")
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	var doc struct {
		Permissions map[string]any `toml:"permissions"`
	}
	if err := toml.Unmarshal(b, &doc); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if _, ok := doc.Permissions[codex.ProfileID]; !ok {
		return nil
	}
	where := path
	if n := profileLine(string(b)); n > 0 {
		where = fmt.Sprintf("%s line %d", path, n)
	}
	return fmt.Errorf("%s defines the permission profile %q, which wecodex sends with every thread: Codex would merge its entries into it and widen what every conversation reaches; "+
		"rename or remove it (agent.sandbox says what conversations reach)", where, codex.ProfileID)
}

var profileLineRe = regexp.MustCompile(`^\s*\[*\s*permissions\s*\.\s*["']?` + regexp.QuoteMeta(codex.ProfileID) + `\b|^\s*permissions\s*=.*\b` + regexp.QuoteMeta(codex.ProfileID) + `\b`)

// profileLine is the 1-based line of config.toml that names the profile, 0
// when none does plainly.
func profileLine(text string) int {
	for i, l := range strings.Split(text, "\n") {
		if profileLineRe.MatchString(l) {
			return i + 1
		}
	}
	return 0
}
