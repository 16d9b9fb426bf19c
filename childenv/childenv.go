// Package childenv is the environment of every process wecodex starts for
// its users: the Codex app-server, an external ACP agent, `codex login`.
// What users type runs under those processes, so they inherit from wecodex
// only what a toolchain needs to work (where programs are, whose home, the
// locale, the time zone, proxies and CA certificates, CODEX_HOME), never the
// rest: wecodex's own environment may hold its secrets (WECODEX_*) and
// whatever else the service manager set. What a child needs beyond that is
// given to it explicitly (agent.codex.env, agent.acp.env).
//
// It is the one place the list is written; Codex's shell policy for the
// commands it runs is built from the same list (CommandPatterns).
package childenv

import (
	"log/slog"
	"os"
	"slices"
	"strings"
)

// inherited is the allow-list: exact names, or a prefix ending in "*".
var inherited = []string{
	// Where programs are and who runs them.
	"PATH", "HOME", "USER", "LOGNAME", "SHELL",
	// Locale and time.
	"LANG", "LANGUAGE", "LC_*", "TZ",
	"TMPDIR",
	// Proxies, in both spellings tools read.
	"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY",
	"http_proxy", "https_proxy", "no_proxy", "all_proxy",
	// CA certificates: OpenSSL and rustls (SSL_CERT_*), Node (the npm
	// launcher, Node agents), Codex's own.
	"SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS", "CODEX_CA_CERTIFICATE",
	// Codex's state directory (wecodex usually sets it explicitly).
	"CODEX_HOME",
}

// agentOnly is the part of the list the agent itself needs and the commands
// it runs do not: where Codex keeps its login and every thread, and its own
// CA setting.
var agentOnly = []string{"CODEX_HOME", "CODEX_CA_CERTIFICATE"}

// refusedPrefix starts every variable of wecodex's own configuration: its
// secrets among them. It never passes, whatever the list says.
const refusedPrefix = "WECODEX_"

// Patterns returns the allow-list as name patterns, "*" matching any run of
// characters ("LC_*"): the form Codex's shell_environment_policy takes.
func Patterns() []string { return slices.Clone(inherited) }

// CommandPatterns is Patterns without what only the agent needs: the
// variables the commands an agent runs for users may inherit from it.
func CommandPatterns() []string {
	return slices.DeleteFunc(Patterns(), func(p string) bool { return slices.Contains(agentOnly, p) })
}

// Allowed reports whether the variable named name passes from wecodex's
// environment to a child.
func Allowed(name string) bool {
	if Refused(name) {
		return false
	}
	for _, p := range inherited {
		if prefix, ok := strings.CutSuffix(p, "*"); ok {
			if strings.HasPrefix(name, prefix) {
				return true
			}
		} else if name == p {
			return true
		}
	}
	return false
}

// Refused reports whether name may never be given to a child, not even
// explicitly: a variable of wecodex's own configuration.
func Refused(name string) bool { return strings.HasPrefix(name, refusedPrefix) }

// Filter returns the entries ("NAME=value") of environ whose names are
// Allowed, in their order, and the names of the others, sorted and without
// repeats.
func Filter(environ []string) (kept, dropped []string) {
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if name != "" && Allowed(name) {
			kept = append(kept, kv)
		} else {
			dropped = append(dropped, name)
		}
	}
	slices.Sort(dropped)
	return kept, slices.Compact(dropped)
}

// Inherit is Filter of this process's environment. It logs the names it left
// out at debug on log (nil logs nothing), names only: the values may be
// secrets.
func Inherit(log *slog.Logger, child string) []string {
	kept, dropped := Filter(os.Environ())
	if log != nil && len(dropped) > 0 {
		log.Debug("child environment leaves out wecodex's variables", "child", child, "names", strings.Join(dropped, ","))
	}
	return kept
}
