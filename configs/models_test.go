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
	got := problemsUnder(t, c, "agent.models")
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

// projects.<name>.models is checked like agent.models, named by its key,
// and the project's model default must be one it lists.
func TestProjectModels(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "w.yaml")
	yaml := "projects:\n  api:\n    path: " + dir + "\n    model: gpt-6\n    models: [gpt-5.5, \"\", \"b c\", gpt-5.5]\n" +
		"  web:\n    path: " + dir + "\n    model: other\n    models: [other, gpt-5.5]\n"
	if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, _, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Projects.List[1].Models; !reflect.DeepEqual(got, []string{"other", "gpt-5.5"}) {
		t.Fatalf("loaded projects.web.models = %v", got)
	}
	got := problemsUnder(t, cfg, "projects.")
	want := []Problem{
		{"projects.api.models[1]", "is empty: name a model Codex lists (model/list), e.g. gpt-5.5"},
		{"projects.api.models[2]", `must be a model's name, without spaces, not "b c"`},
		{"projects.api.models[3]", `names "gpt-5.5" a second time`},
		{"projects.api.model", `is "gpt-6", which projects.api.models does not list; add it there or pick one of gpt-5.5, , b c, gpt-5.5`},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("problems %+v, want %+v", got, want)
	}
}

// problemsUnder are the problems c's validation names under the key prefix.
func problemsUnder(t *testing.T, c *Config, prefix string) []Problem {
	t.Helper()
	var ps Problems
	if err := c.Validate(); !errors.As(err, &ps) {
		t.Fatalf("err %v, want Problems", err)
	}
	var got []Problem
	for _, p := range ps {
		if strings.HasPrefix(p.Key, prefix) {
			got = append(got, p)
		}
	}
	return got
}
