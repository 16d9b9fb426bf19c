package housetest

import "testing"

func TestStandardAndUnder(t *testing.T) {
	for _, p := range []string{"fmt", "net/http", "unicode/utf8"} {
		if !standard(p) {
			t.Errorf("standard(%q) = false", p)
		}
	}
	for _, p := range []string{"github.com/coder/acp-go-sdk", "golang.org/x/tools"} {
		if standard(p) {
			t.Errorf("standard(%q) = true", p)
		}
	}
	allowed := []string{"example.com/a", "example.com/tree/..."}
	for path, want := range map[string]bool{
		"example.com/a":        true,
		"example.com/a/sub":    false, // a path allows itself only
		"example.com/tree":     true,
		"example.com/tree/sub": true,
		"example.com/treex":    false, // a shared prefix is not a subtree
		"example.com/b":        false,
	} {
		if got := under(path, allowed); got != want {
			t.Errorf("under(%q) = %v, want %v", path, got, want)
		}
	}
}
