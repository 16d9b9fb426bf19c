package scriptedmodel

import (
	"regexp"
	"strings"
)

var sandboxModeRE = regexp.MustCompile("`sandbox_mode` is `([a-z-]+)`")

// Permissions is what the request's last permissions instructions say
// (Codex adds new ones to the history when a turn changes them): the
// sandbox mode ("read-only", "workspace-write", "danger-full-access"),
// followed by ", approval never" when Codex says it will never ask.
func (r *Request) Permissions() string {
	last := ""
	for _, d := range r.Developer {
		if sandboxModeRE.MatchString(d) {
			last = d
		}
	}
	m := sandboxModeRE.FindStringSubmatch(last)
	if m == nil {
		return "no sandbox instructions"
	}
	if strings.Contains(last, "Approval policy is currently never") {
		return m[1] + ", approval never"
	}
	return m[1]
}
