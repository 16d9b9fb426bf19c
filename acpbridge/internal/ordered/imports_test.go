package ordered

import (
	"testing"

	"github.com/wecodex/wecodex/internal/housetest"
)

// ordered is a helper of the agent clients: the standard library only.
func TestImportDirection(t *testing.T) {
	housetest.Imports(t)
}
