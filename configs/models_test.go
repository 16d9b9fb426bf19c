package configs

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestAgentModels(t *testing.T) {
	if m := Default().Agent.Models; len(m) != 0 {
		t.Fatalf("default agent.models = %v, want none", m)
	}
	path := filepath.Join(t.TempDir(), "w.yaml")
	if err := os.WriteFile(path, []byte("agent:\n  models: [gpt-5.5, other]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, _, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Agent.Models; !reflect.DeepEqual(got, []string{"gpt-5.5", "other"}) {
		t.Fatalf("loaded agent.models = %v", got)
	}
	c := Default()
	c.Agent.Models = []string{"a", "", "b c", "a"}
	var ps Problems
	if err := c.Validate(); !errors.As(err, &ps) {
		t.Fatalf("err %v, want Problems", err)
	}
	var got []Problem
	for _, p := range ps {
		if strings.HasPrefix(p.Key, "agent.models") {
			got = append(got, p)
		}
	}
	want := []Problem{
		{"agent.models[1]", "is empty: name a model Codex lists (model/list), e.g. gpt-5.5"},
		{"agent.models[2]", `must be a model's name, without spaces, not "b c"`},
		{"agent.models[3]", `names "a" a second time`},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("problems %+v, want %+v", got, want)
	}
	for _, e := range ChatEfforts {
		if !contains(ReasoningEfforts, e) {
			t.Errorf("chat effort %q is not one of ReasoningEfforts", e)
		}
	}
}
