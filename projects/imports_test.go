package projects

import (
	"testing"

	"github.com/wecodex/wecodex/internal/housetest"
)

// projects is neutral: the standard library and git on PATH, nothing of the
// engine, the configs, the store or Codex. It takes childenv, a leaf of the
// standard library only, so that git's environment is filtered by the one
// allow-list every child of wecodex gets rather than a second copy of it.
func TestImportDirection(t *testing.T) {
	housetest.Imports(t, "github.com/wecodex/wecodex/childenv")
}
