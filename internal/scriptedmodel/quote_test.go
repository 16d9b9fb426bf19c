package scriptedmodel

import (
	"encoding/json"
	"testing"
)

// FuzzAppendQuoted checks the allocation-free delta encoder against
// encoding/json: what it writes must decode to what encoding/json decodes.
func FuzzAppendQuoted(f *testing.F) {
	for _, s := range []string{"", "plain", `quote " and \ backslash`, "new\nline\ttab\r", "\x00\x1f\x7f", "héllo 世界", "\u2028\u2029", "bad \xff utf8", "<html>&"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var got, want string
		if err := json.Unmarshal(appendQuoted(nil, s), &got); err != nil {
			t.Fatalf("appendQuoted(%q) is not a JSON string: %v", s, err)
		}
		ref, _ := json.Marshal(s)
		if err := json.Unmarshal(ref, &want); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("appendQuoted(%q) decodes to %q, encoding/json to %q", s, got, want)
		}
	})
}
