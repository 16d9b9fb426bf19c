package cards

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wecodex/wecodex/internal/housetest"
)

// cards is the neutral card model and its renderers: ACP's types and
// nothing else, not the bot, not a platform, not a markdown parser (the
// playground's HTML renderer lives with the playground).
func TestImportDirection(t *testing.T) {
	housetest.Imports(t, "github.com/coder/acp-go-sdk")
}

// TestNoWireTypes keeps platform wire formats out of cards: a wire type is
// a struct with field tags for an encoding (WeCom's template card JSON
// lives in bot/wecom), and no encoding package is imported.
func TestNoWireTypes(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, parser.ImportsOnly|parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			if p := strings.Trim(imp.Path.Value, `"`); strings.HasPrefix(p, "encoding/") {
				t.Errorf("%s imports %s: wire formats belong to the platform packages", name, p)
			}
		}
		f, err = parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if field, ok := n.(*ast.Field); ok && field.Tag != nil {
				t.Errorf("%s: field with tag %s: wire types belong to the platform packages", fset.Position(field.Pos()), field.Tag.Value)
			}
			return true
		})
	}
}
