package schedule

import (
	"fmt"
	"sort"
	"time"
)

// Missed is what a schedule does after the whole deployment was down over
// its slots.
type Missed string

const (
	// MissedSkip drops the slots nobody was up for.
	MissedSkip Missed = "skip"
	// MissedOnce runs one catch-up for them, however many they were.
	MissedOnce Missed = "once"
)

// Job is one schedule: a YAML job or one made from a chat.
type Job struct {
	// ID names the job in the store's keys and on /readyz: the YAML name,
	// or "chat-<n>" for one made with /schedule add. It never changes.
	ID string
	// Spec is when it fires.
	Spec Spec
	// Turn is what each fire starts; its ID is made per slot.
	Turn Turn
	// Missed is what happens to the slots nobody was up for.
	Missed Missed
	// Paused jobs fire nothing (a chat schedule's /schedule pause).
	Paused bool
}

// Turn is what a fire hands the Starter: a prompt to run in a conversation
// as if its User had sent it, its card pushed to the conversation.
type Turn struct {
	// ID is unique per fire ("schedule:<job>:<slot>", "trigger:<name>:<sig>"):
	// the engine's dedupe makes a second start of one ID a no-op.
	ID string
	// Conversation is the conversation's key as the logs show it
	// (group:<chatid>, single:<userid>, app:<userid>).
	Conversation string
	// User is whom the turn runs as; empty means the conversation's own
	// user (a 1:1 chat's), or the source's name in a group.
	User   string
	Prompt string
	// Project and Mode are the schedule's or trigger's project (issue 25)
	// and permission mode (issue 26), passed through for when the engine
	// takes them.
	Project string
	Mode    string
	// Source names what fired, for logs: "schedule <id>" or "trigger <name>".
	Source string
	// RerunIfLost runs the turn once more when the replica running it dies
	// before it finishes: a missed: once schedule's slots.
	RerunIfLost bool
}

// slotTurn is the turn j starts for its slot at.
func (j Job) slotTurn(at time.Time) Turn {
	t := j.Turn
	t.ID = fmt.Sprintf("schedule:%s:%d", j.ID, at.Unix())
	t.Source = "schedule " + j.ID
	t.RerunIfLost = j.Missed == MissedOnce
	return t
}

func sortedNames[T any](m map[string]T) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
