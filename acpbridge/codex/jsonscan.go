package codex

import "github.com/wecodex/wecodex/acpbridge/internal/jsonscan"

// The read loop sees every line Codex writes, and almost all of them are
// deltas. Decoding each into a struct with encoding/json costs several
// allocations and a reflection walk per line, so the envelope and the hot
// delta notifications are read with internal/jsonscan instead (shared with
// acpbridge/external), which hands back raw value bytes without copying.
// Everything else is decoded with encoding/json from the raw params. These
// are the names this package's reader uses for it.

// fields iterates over the members of a JSON object; err is set once the
// object turned out malformed.
type fields struct {
	it  jsonscan.Fields
	err error
}

func newFields(obj []byte) fields {
	f := fields{it: jsonscan.NewFields(obj)}
	f.err = f.it.Err()
	return f
}

// next returns the next member: its key as raw bytes between the quotes (keys
// Codex sends never need unescaping) and its raw value. ok is false at the end
// of the object or on malformed input (then err is set).
func (f *fields) next() (key, value []byte, ok bool) {
	key, value, ok = f.it.Next()
	if !ok {
		f.err = f.it.Err()
	}
	return key, value, ok
}

// rawString returns the contents of a JSON string value without its quotes,
// and whether it contains escapes. A non-string value returns ok false.
func rawString(v []byte) (s []byte, escaped, ok bool) { return jsonscan.RawString(v) }

// stringValue decodes a JSON string value; "" for anything else (null too).
// Unescaped bytes pass through as they are, invalid UTF-8 included (Codex
// writes valid UTF-8; the update's encoding replaces anything else).
func stringValue(v []byte) string {
	s, escaped, ok := jsonscan.RawString(v)
	if !ok {
		return ""
	}
	if !escaped {
		return string(s)
	}
	out, _ := jsonscan.String(v)
	return out
}

// parseID reads a JSON-RPC id we issued (a non-negative integer).
func parseID(v []byte) (int64, bool) {
	if len(v) == 0 || len(v) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}
