package schedule

import (
	"testing"

	"github.com/wecodex/wecodex/internal/housetest"
)

// schedule knows its cron parser and bot (whose Schedules the Book is): the store, the engine and the
// metrics reach it through its own interfaces (Claims, Starter, Observer).
func TestImportDirection(t *testing.T) {
	housetest.Imports(t, "github.com/wecodex/wecodex/bot", "github.com/robfig/cron/v3")
}
