package bot

import "time"

// SetWindowHook makes window decide when each turn's stream window ends
// instead of a timer. Call it before Run.
func SetWindowHook(e *Engine, window func(streamID string) <-chan time.Time) { e.hooks.window = window }

// SetTurnEndedHook runs f once a turn's end is recorded, before its card gets
// its final status. Call it before Run.
func SetTurnEndedHook(e *Engine, f func(streamID string)) { e.hooks.turnEnded = f }
