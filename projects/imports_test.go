package projects

import (
	"testing"

	"github.com/wecodex/wecodex/internal/housetest"
)

// projects is neutral: the standard library and git on PATH, nothing of the
// engine, the configs, the store or Codex.
func TestImportDirection(t *testing.T) {
	housetest.Imports(t)
}
