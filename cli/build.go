package cli

import (
	"runtime/debug"
)

// Version is set at build time:
// go build -ldflags "-X github.com/wecodex/wecodex/cli.Version=v1.2.3".
var Version = "dev"

// BuildID tells one build of the module from another. make build and the
// Dockerfile stamp cmd/wecodex and cmd/wecodex-codex-acp with the same
// random id, so that wecodex can tell the lean codex-acp binary beside it is
// the same build (not a stale copy from an earlier install) before handing
// it a session. "" (go build, go install) means unknown, and matches
// nothing.
var BuildID = ""

// Revision names the commit a dev build came from, when Go recorded it:
// " (0123456789ab+dirty)", or "" for a release or an unknown commit.
func Revision() string {
	info, ok := debug.ReadBuildInfo()
	if Version != "dev" || !ok {
		return ""
	}
	var rev, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev == "" {
		return ""
	}
	return " (" + rev + dirty + ")"
}
