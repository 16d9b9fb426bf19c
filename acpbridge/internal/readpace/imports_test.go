package readpace

import (
	"testing"

	"github.com/wecodex/wecodex/internal/housetest"
)

// readpace is a helper of the agent clients: the standard library only.
func TestImportDirection(t *testing.T) {
	housetest.Imports(t)
}
