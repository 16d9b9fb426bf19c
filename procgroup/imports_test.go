package procgroup

import (
	"testing"

	"github.com/wecodex/wecodex/internal/housetest"
)

// The agent clients import procgroup, so it must stay a leaf: the standard
// library only.
func TestImportsOnlyTheStandardLibrary(t *testing.T) {
	housetest.Imports(t)
}
