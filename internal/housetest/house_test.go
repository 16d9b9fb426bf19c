package housetest

import (
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/wecodex/wecodex"

// pkg is one package of the module as go/build reads it.
type pkg struct {
	path string // import path
	*build.Package
}

// modulePackages reads every package of the module (production files and
// tests), skipping the pinned tools, testdata and hidden directories.
func modulePackages(t *testing.T) []pkg {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root: %v", err)
	}
	var pkgs []pkg
	err = filepath.WalkDir(root, func(dir string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		name := d.Name()
		if dir != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules" || name == "vendor") {
			return filepath.SkipDir
		}
		p, err := build.ImportDir(dir, 0)
		if _, none := err.(*build.NoGoError); none {
			return nil
		}
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, dir)
		path := module
		if rel != "." {
			path += "/" + filepath.ToSlash(rel)
		}
		pkgs = append(pkgs, pkg{path, p})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) < 20 {
		t.Fatalf("found %d packages; the walk missed the module", len(pkgs))
	}
	return pkgs
}

// production reports whether path is shipped code: not the module's
// internal test support, not a script, not a test double anywhere.
func production(path string) bool {
	return !under(path, []string{module + "/internal/...", module + "/scripts/..."}) &&
		!strings.HasSuffix(path, "test")
}

// TestHouse checks the rules of DESIGN's house that span packages; each
// package's own TestImportDirection names what it may import.
func TestHouse(t *testing.T) {
	pkgs := modulePackages(t)
	seen := map[string]bool{}
	for _, p := range pkgs {
		seen[p.path] = true
		all := append(append(append([]string{}, p.Imports...), p.TestImports...), p.XTestImports...)
		for _, imp := range all {
			if under(imp, []string{module + "/cmd/..."}) {
				t.Errorf("%s imports %s: no package imports cmd", p.path, imp)
			}
		}
		if !production(p.path) {
			continue
		}
		for _, imp := range p.Imports {
			if p.path == module+"/cmd/wecodex" && imp == module+"/internal/playground" {
				continue // the playground a config switch mounts
			}
			if under(imp, []string{module + "/internal/..."}) || (under(imp, []string{module + "/..."}) && !production(imp)) {
				t.Errorf("%s imports %s: test support stays out of production code", p.path, imp)
			}
		}
		for _, rule := range houseRules {
			if p.path != rule.pkg {
				continue
			}
			for _, imp := range p.Imports {
				if !standard(imp) && !under(imp, rule.only) {
					t.Errorf("%s imports %s; the house lets it import only the standard library and %s", p.path, imp, strings.Join(rule.only, ", "))
				}
			}
		}
	}
	for _, rule := range houseRules {
		if !seen[rule.pkg] {
			t.Errorf("no package %s: the rule for it checks nothing", rule.pkg)
		}
	}
}

// houseRules are DESIGN's refinements (issue 24) checked from here, so they
// hold even where a package's own test is edited by its owner.
var houseRules = []struct {
	pkg  string
	only []string
}{
	// cards is neutral: ACP's types only, no goldmark, no WeCom.
	{module + "/cards", []string{"github.com/coder/acp-go-sdk"}},
	// bot: the agent domain and the cards, never a channel or the store.
	{module + "/bot", []string{"github.com/coder/acp-go-sdk", module + "/acpbridge", module + "/cards"}},
	// projects: the standard library (and git), nothing of the engine,
	// the configs or Codex; cmd adapts it to what bot declares. childenv
	// (a standard-library leaf) is the one environment filter git runs
	// under, as every other child of wecodex does.
	{module + "/projects", []string{module + "/childenv"}},
	// store: Redis and the embedded Redis, nothing of the bot.
	{module + "/store", []string{"github.com/redis/go-redis/v9/...", "github.com/alicebob/miniredis/v2/..."}},
	// the channels: the WeCom layer, the engine, the cards and their one library.
	{module + "/bot/wecom/webhook", []string{module + "/bot/wecom", module + "/bot", module + "/cards"}},
	{module + "/bot/wecom/longconn", []string{module + "/bot/wecom", module + "/bot", module + "/cards", "github.com/coder/websocket"}},
	{module + "/bot/wecom/app", []string{module + "/bot/wecom", module + "/bot", module + "/cards", "github.com/silenceper/wechat/v2/..."}},
}
