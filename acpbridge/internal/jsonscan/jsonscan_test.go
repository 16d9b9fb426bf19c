package jsonscan

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestFieldsMembersAndErrors(t *testing.T) {
	tests := []struct {
		in      string
		members []string // key=value
		bad     bool
	}{
		{`{}`, nil, false},
		{` { "a" : [1, {"b": "}"}], "c": null , "d":"\\"}`, []string{`a=[1, {"b": "}"}]`, `c=null`, `d="\\"`}, false},
		{`{"a":"x\"y","b":true}`, []string{`a="x\"y"`, `b=true`}, false},
		{`[1]`, nil, true},
		{`{"a":`, nil, true},
		{`{"a":"unterminated}`, nil, true},
	}
	for _, tt := range tests {
		var got []string
		f := NewFields([]byte(tt.in))
		for k, v, ok := f.Next(); ok; k, v, ok = f.Next() {
			got = append(got, string(k)+"="+string(v))
		}
		if strings.Join(got, "|") != strings.Join(tt.members, "|") || (f.Err() != nil) != tt.bad {
			t.Errorf("%s: members %q, err %v; want %q, bad %v", tt.in, got, f.Err(), tt.members, tt.bad)
		}
	}
}

func TestPlainKey(t *testing.T) {
	tests := []struct {
		key   string
		known []string
		want  bool
	}{
		{"text", []string{"type", "text"}, true},
		{"other", []string{"type", "text"}, true},
		{"Text", []string{"type", "text"}, false}, // encoding/json would match it
		{`te\u0078t`, []string{"text"}, false},    // an escape: only a decoder knows
		{"version", nil, true},                    // any key that is not escaped
	}
	for _, tt := range tests {
		if got := PlainKey([]byte(tt.key), tt.known...); got != tt.want {
			t.Errorf("PlainKey(%q, %q) = %v, want %v", tt.key, tt.known, got, tt.want)
		}
	}
}

// FuzzMatchesEncodingJSON: every member of a valid object is found with the
// value encoding/json sees, and String decodes a string exactly as it does.
func FuzzMatchesEncodingJSON(f *testing.F) {
	f.Add([]byte(`{"method":"session/update","params":{"sessionId":"s","update":{"content":{"type":"text","text":"a \"q\" \\ \n"}}}}`))
	f.Add([]byte(`{"id":12,"result":{"thread":{"id":"x"}},"emittedAtMs":1}`))
	f.Add([]byte(`{"a":"\u00e9\\\"x","b":"` + "\xff" + `"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var want map[string]json.RawMessage
		if json.Unmarshal(data, &want) != nil {
			f := NewFields(data) // need not reject it, must not panic
			for _, _, ok := f.Next(); ok; _, _, ok = f.Next() {
			}
			return
		}
		got := map[string]string{}
		fs := NewFields(data)
		for k, v, ok := fs.Next(); ok; k, v, ok = fs.Next() {
			if !PlainKey(k) || !utf8.Valid(k) {
				return // a key only a decoder can name
			}
			got[string(k)] = string(v)
		}
		if fs.Err() != nil {
			t.Fatalf("scanner rejected valid JSON %q: %v", data, fs.Err())
		}
		for k, raw := range want {
			if strings.TrimSpace(got[k]) != strings.TrimSpace(string(raw)) {
				t.Fatalf("member %q = %q, want %q", k, got[k], raw)
			}
			var s string
			if json.Unmarshal(raw, &s) == nil {
				if g, ok := String([]byte(got[k])); !ok || g != s {
					t.Fatalf("string %q decoded as %q, %v; want %q", k, g, ok, s)
				}
			}
		}
	})
}
