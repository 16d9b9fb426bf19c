package acpbridge

import (
	"testing"

	"github.com/wecodex/wecodex/internal/housetest"
)

// acpbridge is the agent side's domain: ACP's types only; its client and server live below it and import it, never the reverse.
func TestImportDirection(t *testing.T) {
	housetest.Imports(t, "github.com/coder/acp-go-sdk")
}
