package jsonscan

import (
	"testing"

	"github.com/wecodex/wecodex/internal/housetest"
)

// jsonscan is a helper of the agent clients: the standard library only.
func TestImportDirection(t *testing.T) {
	housetest.Imports(t)
}
