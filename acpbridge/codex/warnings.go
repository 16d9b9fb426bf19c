package codex

// maxAdminWarnings bounds the distinct environment warnings kept for
// Warnings; Codex sends a handful, so more means something repeats with
// varying text.
const maxAdminWarnings = 16

// isAdminNotice reports whether a notification is about the machine Codex
// runs on rather than a user's turn: a config warning (bubblewrap missing), a
// deprecation, or Codex's generic `warning` (model metadata not found, a
// transport fallback), none of which names a turn. They are an admin's to
// fix, so they go to the log and /readyz, not onto every user's card.
func isAdminNotice(method string) bool {
	switch method {
	case "configWarning", "deprecationNotice", "warning":
		return true
	}
	return false
}

// adminWarning logs an environment warning the first time it is seen and
// keeps it for Warnings.
func (a *Agent) adminWarning(text string) {
	a.mu.Lock()
	seen := false
	for _, w := range a.warnings {
		seen = seen || w == text
	}
	if !seen && len(a.warnings) < maxAdminWarnings {
		a.warnings = append(a.warnings, text)
	}
	a.mu.Unlock()
	if !seen {
		a.log.Warn("codex warning", "warning", text)
	}
}

// Warnings returns the distinct environment warnings Codex has sent since
// this Agent started (bubblewrap missing, unknown model metadata, ...), for
// an admin: the bot shows them on /readyz.
func (a *Agent) Warnings() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.warnings...)
}
