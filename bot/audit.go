package bot

import (
	"context"
	"time"

	"github.com/wecodex/wecodex/acpbridge"
)

// AuditKind names what an audit record is about.
type AuditKind string

// The kinds of audit records (README, "Audit trail").
const (
	AuditMessage         AuditKind = "message"          // a message received
	AuditTurnStarted     AuditKind = "turn_started"     // a turn taken off the queue
	AuditTurnEnded       AuditKind = "turn_ended"       // a turn over: outcome, duration, tokens
	AuditCommand         AuditKind = "command"          // a command the agent ran, and its exit code
	AuditPatch           AuditKind = "patch"            // a patch the agent applied, and its files
	AuditApprovalAsked   AuditKind = "approval_asked"   // the agent asked to leave its sandbox
	AuditApprovalDecided AuditKind = "approval_decided" // and who decided what
	AuditSetting         AuditKind = "setting"          // a mode, model, project or session change
	AuditAdmin           AuditKind = "admin"            // an admin command (wecodex purge, ...)
	AuditRefused         AuditKind = "refused"          // a message refused: who and why
	AuditSchedule        AuditKind = "schedule"         // a schedule's slot fired: its name, slot and outcome
	AuditTrigger         AuditKind = "trigger"          // a signed trigger request: its name, timestamp and outcome
)

// Why a message was refused, in AuditEvent.Reason.
const (
	RefusedAccess    = "access"     // not on the access lists
	RefusedExternal  = "external"   // another company's contact
	RefusedQueueFull = "queue_full" // the conversation's queue is full
	// RefusedBacklogFull: the sender has access.max_queued_per_user
	// messages waiting already.
	RefusedBacklogFull = "backlog_full"
	// RefusedProject: /project named a project not open to the
	// conversation (Detail: which).
	RefusedProject = "project"
	// RefusedNotApprover: /approve or /deny (or a card's button) by
	// someone who may not decide that request (Approval: which), or
	// /mode full by a non-approver (Detail: "mode full").
	RefusedNotApprover = "not_approver"
)

// AuditEvent is one thing the engine did that an auditor records. The
// auditor adds the time, the replica and the conversation's sequence
// number, and keeps secrets and (unless configured) message text out.
// Fields a kind does not have stay zero.
type AuditEvent struct {
	Kind         AuditKind
	User         string
	Conversation string // the conversation's Key
	Channel      string
	Turn         string // the turn's id, as its log lines carry it
	Project      string // the conversation's project ("" until issue 25's projects)

	MsgID  string // message: the platform's id
	Length int    // message: its text's length in bytes
	Text   string // message: its text (written only with audit.include_text)

	Outcome  string        // turn_ended; schedule, trigger: what became of the fire
	Duration time.Duration // turn_ended
	Tokens   *acpbridge.Tokens

	Command  string   // command: its command line; admin: the command
	ExitCode *int     // command
	Files    []string // patch

	Approval int64   // approval_*: the request's id
	What     string  // approval_asked: what is asked
	Verdict  Verdict // approval_decided
	By       string  // approval_decided: who decided ("" for a timeout)

	Setting string // setting: what changed (mode, model, project, session)
	Value   string // setting: to what

	Name string    // schedule, trigger: the schedule's id or the trigger's name
	At   time.Time // schedule: the slot; trigger: the request's X-Wecodex-Timestamp

	Reason string // refused: why (Refused*, or the limit's key)
	Detail string // refused, admin: one line more
}

// Auditor records audit events, for every replica in one trail. Records
// are written in the order they are handed over.
type Auditor interface {
	// Audit records e and returns once it is written or ctx ends.
	Audit(ctx context.Context, e AuditEvent)
	// Later hands e over without waiting: the agent's read loop (tool
	// calls) must never wait on the store.
	Later(e AuditEvent)
}

// NopAuditor records nothing.
type NopAuditor struct{}

func (NopAuditor) Audit(context.Context, AuditEvent) {}
func (NopAuditor) Later(AuditEvent)                  {}
