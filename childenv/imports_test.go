package childenv

import (
	"testing"

	"github.com/wecodex/wecodex/internal/housetest"
)

// The agent clients and the wiring import childenv, so it stays a leaf: the
// standard library only.
func TestImportsOnlyTheStandardLibrary(t *testing.T) {
	housetest.Imports(t)
}
