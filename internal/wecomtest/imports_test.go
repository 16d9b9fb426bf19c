package wecomtest

import (
	"go/build"
	"slices"
	"testing"

	"github.com/wecodex/wecodex/internal/housetest"
)

// wecomtest plays WeCom, so it must not share the bot's code: a fake built on
// the bot's crypto or wire types would agree with the bot's bugs. Its tests
// may use the bot as the peer; its production files import only the standard
// library and the WebSocket library the long-connection server speaks with.
func TestImportsNothingOfWecodex(t *testing.T) {
	housetest.Imports(t, "github.com/coder/websocket")
}

// The playground links wecomtest into wecodex serve, where package testing
// must not be (it registers test flags on the binary).
func TestDoesNotImportTesting(t *testing.T) {
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(pkg.Imports, "testing") {
		t.Fatal("wecomtest's production files import testing")
	}
}
