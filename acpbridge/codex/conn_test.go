package codex

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestAppServerArgsWriteTOML(t *testing.T) {
	got := appServerArgs(map[string]string{
		"model":                       "gpt-5.5",
		"model_reasoning_summary":     `"detailed"`,
		"sandbox_workspace_write":     `{ network_access = true }`,
		"history.persistence":         "none",
		"stream_max_retries":          "0",
		"check_for_update_on_startup": "false",
		"notify":                      `["say", "done"]`,
		"path":                        `C:\dir "x"`,
	})
	equalLines(t, "args", got, []string{
		"app-server",
		"-c", `check_for_update_on_startup=false`,
		"-c", `history.persistence="none"`,
		"-c", `model="gpt-5.5"`,
		"-c", `model_reasoning_summary="detailed"`,
		"-c", `notify=["say", "done"]`,
		"-c", `path="C:\\dir \"x\""`,
		"-c", `sandbox_workspace_write={ network_access = true }`,
		"-c", `stream_max_retries=0`,
	})
}

func TestStderrTailRedactsSecretsAndColor(t *testing.T) {
	tb := &tailBuffer{max: 64}
	_, _ = tb.Write([]byte(strings.Repeat("old noise\n", 20)))
	tb = &tailBuffer{max: 4096}
	_, _ = tb.Write([]byte("line one\n\x1b[31mERROR\x1b[0m auth failed: Authorization: Bearer abc.def-123\nkey sk-proj-ABCDEFGH12345678 rejected\napi_key=hunter2secret\n"))
	got := tb.tail()
	want := "ERROR auth failed: Authorization: [redacted] | key [redacted] rejected | [redacted]"
	if got != want {
		t.Fatalf("tail = %q, want %q", got, want)
	}
}

func FuzzFieldsMatchesEncodingJSON(f *testing.F) {
	f.Add([]byte(`{"method":"item/agentMessage/delta","params":{"threadId":"t","turnId":"u","itemId":"i","delta":"a \"q\" \\ \n"}}`))
	f.Add([]byte(`{"id":12,"result":{"thread":{"id":"x"}},"emittedAtMs":1}`))
	f.Add([]byte(`{ "a" : [1, {"b": "}"}], "c": null , "d":"\\"}`))
	f.Add([]byte(`{"a":"\u00e9\\\"x"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var want map[string]json.RawMessage
		// Codex writes valid UTF-8 (serde_json); invalid bytes pass through
		// the scanner as they are and are replaced when the update is encoded.
		if json.Unmarshal(data, &want) != nil || !utf8.Valid(data) {
			// The scanner need not reject everything encoding/json does,
			// but it must not panic.
			fs := newFields(data)
			for {
				if _, _, ok := fs.next(); !ok {
					break
				}
			}
			return
		}
		got := map[string]string{}
		fs := newFields(data)
		for {
			k, v, ok := fs.next()
			if !ok {
				break
			}
			if strings.ContainsRune(string(k), '\\') || !utf8.Valid(k) {
				return // keys Codex never sends are outside the scanner's contract
			}
			got[string(k)] = string(v)
		}
		if fs.err != nil {
			t.Fatalf("scanner rejected valid JSON %q: %v", data, fs.err)
		}
		for k, raw := range want {
			if strings.TrimSpace(got[k]) != strings.TrimSpace(string(raw)) {
				t.Fatalf("member %q = %q, want %q", k, got[k], raw)
			}
			var s string
			if json.Unmarshal(raw, &s) == nil && stringValue([]byte(got[k])) != s {
				t.Fatalf("string %q decoded as %q, want %q", k, stringValue([]byte(got[k])), s)
			}
		}
	})
}
