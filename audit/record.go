package audit

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/wecodex/wecodex/acpbridge"
	"github.com/wecodex/wecodex/bot"
)

// Record is one audit record, one JSON object per line. time, kind, user,
// conversation, channel, replica and seq are in every record; the rest
// only in the kinds that have them (README, "Audit trail").
type Record struct {
	Time         time.Time `json:"time"`
	Kind         string    `json:"kind"`
	User         string    `json:"user"`
	Conversation string    `json:"conversation"`
	Channel      string    `json:"channel"`
	Replica      string    `json:"replica"`
	Turn         string    `json:"turn,omitempty"`
	// Seq numbers the records of one conversation, 1 first, in the order
	// they were written, whichever replica wrote them.
	Seq     int64  `json:"seq"`
	Project string `json:"project,omitempty"`

	MsgID  string `json:"msgid,omitempty"`
	Length *int   `json:"length,omitempty"`
	Text   string `json:"text,omitempty"`

	Outcome    string            `json:"outcome,omitempty"`
	DurationMS *int64            `json:"duration_ms,omitempty"`
	Tokens     *acpbridge.Tokens `json:"tokens,omitempty"`

	Command  string   `json:"command,omitempty"`
	ExitCode *int     `json:"exit_code,omitempty"`
	Files    []string `json:"files,omitempty"`

	Approval int64  `json:"approval,omitempty"`
	What     string `json:"what,omitempty"`
	Verdict  string `json:"verdict,omitempty"`
	By       string `json:"by,omitempty"`

	Name      string     `json:"name,omitempty"`
	Slot      *time.Time `json:"slot,omitempty"`
	Timestamp *time.Time `json:"timestamp,omitempty"`

	Setting string `json:"setting,omitempty"`
	Value   string `json:"value,omitempty"`
	Reason  string `json:"reason,omitempty"`
	Detail  string `json:"detail,omitempty"`
}

// recordOf is e as a record, before its number and its scrubbing; text is
// kept only when includeText.
func recordOf(e bot.AuditEvent, replica string, now time.Time, includeText bool) Record {
	r := Record{
		Time: now.UTC(), Kind: string(e.Kind), User: e.User, Conversation: e.Conversation, Channel: e.Channel,
		Replica: replica, Turn: e.Turn, Project: e.Project, Outcome: e.Outcome, Tokens: e.Tokens,
		Command: e.Command, ExitCode: e.ExitCode, Files: e.Files, Approval: e.Approval, What: e.What,
		Verdict: string(e.Verdict), By: e.By, Name: e.Name, Setting: e.Setting, Value: e.Value, Reason: e.Reason, Detail: e.Detail,
	}
	switch e.Kind {
	case bot.AuditMessage, bot.AuditRefused, bot.AuditSchedule, bot.AuditTrigger:
		r.MsgID = e.MsgID
	}
	if e.Kind == bot.AuditMessage {
		n := e.Length
		r.Length = &n
		if includeText {
			r.Text = e.Text
		}
	}
	if !e.At.IsZero() {
		at := e.At.UTC()
		switch e.Kind {
		case bot.AuditSchedule:
			r.Slot = &at
		case bot.AuditTrigger:
			r.Timestamp = &at
		}
	}
	if e.Kind == bot.AuditTurnEnded {
		ms := e.Duration.Milliseconds()
		r.DurationMS = &ms
	}
	return r
}

// Decode reads one record (a line of the file, or a stream entry).
func Decode(b []byte) (Record, error) {
	var r Record
	if err := json.Unmarshal(b, &r); err != nil {
		return Record{}, fmt.Errorf("decode audit record: %w", err)
	}
	return r, nil
}
