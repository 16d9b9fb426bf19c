package audit

import (
	"regexp"
	"strings"
)

// redacted replaces a secret in a record.
const redacted = "REDACTED"

// envAssignment is a NAME=value word, which may carry a secret (FOO=secret
// cmd, env FOO=secret cmd, export FOO=secret): logs show the name only
// (bot's withoutEnv), and so does the audit.
var envAssignment = regexp.MustCompile(`(^|\s|'|")[A-Za-z_][A-Za-z0-9_]*=("[^"]*"|'[^']*'|\S*)`)

// scrubber keeps secrets out of records: the configured secret values
// wherever they appear, and the values of environment assignments in
// commands.
type scrubber struct{ secrets []string }

// minSecret is the shortest secret value replaced: a shorter one would
// mangle ordinary words.
const minSecret = 6

func newScrubber(secrets []string) scrubber {
	var s scrubber
	for _, v := range secrets {
		if len(v) >= minSecret {
			s.secrets = append(s.secrets, v)
		}
	}
	return s
}

func (s scrubber) text(v string) string {
	for _, sec := range s.secrets {
		v = strings.ReplaceAll(v, sec, redacted)
	}
	return v
}

func (s scrubber) command(v string) string {
	v = envAssignment.ReplaceAllStringFunc(v, func(m string) string {
		name, _, _ := strings.Cut(m, "=")
		return name + "=…"
	})
	return s.text(v)
}

// record is r with no secret left in any of its texts.
func (s scrubber) record(r Record) Record {
	r.Command, r.What = s.command(r.Command), s.command(r.What)
	for _, p := range []*string{&r.Text, &r.Detail, &r.Value, &r.Reason, &r.User, &r.Conversation, &r.By} {
		*p = s.text(*p)
	}
	files := make([]string, len(r.Files))
	for i, f := range r.Files {
		files[i] = s.text(f)
	}
	if r.Files != nil {
		r.Files = files
	}
	return r
}
