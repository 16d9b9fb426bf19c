package bot

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge"
	"github.com/wecodex/wecodex/cards"
)

// DefaultApprovalTimeout is agent.approval_timeout's default: a request no
// one decides within it is declined.
const DefaultApprovalTimeout = 10 * time.Minute

// ApprovalStore records approval requests and their decisions, shared by
// every replica: the turn waits on one replica, the decision may arrive on
// any. Ids are shared by every conversation and never reused, so an id alone
// names one request (an approver decides it from their own chat), and a
// decision naming one cannot decide a later request.
type ApprovalStore interface {
	OpenApproval(ctx context.Context, conv string, request []byte) (id int64, err error)
	PendingApprovals(ctx context.Context, conv string) (ids []int64, requests [][]byte, err error)
	// ApprovalOwner is the conversation of request id, "" when unknown.
	ApprovalOwner(ctx context.Context, id int64) (conv string, err error)
	// AllPendingApprovals is every conversation's pending requests, oldest
	// first.
	AllPendingApprovals(ctx context.Context) (convs []string, ids []int64, requests [][]byte, err error)
	// DecideApproval records decision if id is still pending; current is
	// the decision recorded (this one or the first), request the request.
	DecideApproval(ctx context.Context, conv string, id int64, decision []byte) (decided bool, current, request []byte, err error)
	// ApprovalDecision is the recorded decision, nil while pending.
	ApprovalDecision(ctx context.Context, conv string, id int64) ([]byte, error)
	WatchApprovals(ctx context.Context, ready func(), fn func(conv string, id int64)) error
	// AddGrant records what an /approve always lets conv's agent do again
	// unasked; Grants returns every grant recorded for conv.
	AddGrant(ctx context.Context, conv string, grant []byte) error
	Grants(ctx context.Context, conv string) ([][]byte, error)
}

// Verdict is what was decided about an approval request.
type Verdict string

const (
	VerdictApprove   Verdict = "approve"   // /approve: this request only
	VerdictAlways    Verdict = "always"    // /approve always: this request, and what starts the same way in the conversation's session (see grant)
	VerdictDeny      Verdict = "deny"      // /deny
	VerdictTimeout   Verdict = "timeout"   // no one decided within agent.approval_timeout
	VerdictCancelled Verdict = "cancelled" // the turn ended first
)

// ApprovalAsk is one approval request as channels see it.
type ApprovalAsk struct {
	ID           int64
	Conversation Conversation
	Requester    string
	// What is the short description the card shows: the command and its
	// working directory, or the files a patch touches.
	What string
	Turn Turn
	// Approvers are the userids who decide it wherever they are: a channel
	// that can push sends each of them the ask card in their 1:1 chat.
	Approvers []string
	// Deciders says who may decide, for the progress line: "an admin",
	// "dave or erin", "alice (or an admin)".
	Deciders string
	// For says it on a button card's title: "an admin", "alice or an admin".
	For string
}

// ApprovalDecision is how a request was decided, and by whom ("" for a
// timeout or a turn that ended).
type ApprovalDecision struct {
	Verdict Verdict `json:"verdict"`
	By      string  `json:"by,omitempty"`
	At      int64   `json:"at"` // unix ms
}

// Approver is a Channel with its own way to decide approval requests (the
// long connection's button card). Channels without one show the text
// commands, which work everywhere.
type Approver interface {
	// AskApproval is called when a turn of the channel starts waiting; it
	// returns how to decide, for the card's status line.
	AskApproval(ctx context.Context, a ApprovalAsk) (hint string)
	// ApprovalDecided is called once the request is decided, whoever or
	// whatever decided it.
	ApprovalDecided(ctx context.Context, a ApprovalAsk, d ApprovalDecision)
}

// approvalRequest is a request as recorded in the store.
type approvalRequest struct {
	Requester string `json:"requester"`
	Session   string `json:"session"`
	What      string `json:"what"`
	Replica   string `json:"replica"`
	Asked     int64  `json:"asked"` // unix ms
	// Always says what /approve always would let run unasked from then on
	// (grant.what); "" when nothing could be.
	Always string `json:"always,omitempty"`
	// Approvers are who decide it (access.approvers, or the project's own
	// list), recorded with it so that a decision on any replica, from any
	// chat, checks them and not the decider's conversation's. Empty (and
	// in a record made before there was a field) the deciding replica's
	// access.approvers decide.
	Approvers []string `json:"approvers,omitempty"`
}

// access is acc with the approvers the request recorded, when it did.
func (r approvalRequest) access(acc Access) Access {
	if len(r.Approvers) > 0 {
		acc.Approvers = r.Approvers
	}
	return acc
}

// approvals asks a person before the agent runs what needs approval, and
// takes their decision from any replica. It is agent.approval ask: each
// turn's card is wrapped in an askingSink whose permission requests wait
// here.
type approvals struct {
	cfg   Config
	store ApprovalStore // nil: the store keeps no approvals, every request is declined
	log   *slog.Logger
}

// wait is one request a turn on this replica waits on.
type wait struct {
	id     int64
	status cards.Status
	cancel context.CancelFunc
	done   chan struct{}
}

func newApprovals(cfg Config, st ApprovalStore, log *slog.Logger) *approvals {
	return &approvals{cfg: cfg, store: st, log: log}
}

// decidedBy is a whose requests list decides instead of access.approvers
// (a project's approvers), or a itself for an empty list. Decisions reach
// the requests through the store either way: only the ask differs.
func (a *approvals) decidedBy(list []string) *approvals {
	if len(list) == 0 {
		return a
	}
	b := *a
	b.cfg.Access.Approvers = list
	return &b
}

// sinkFor wraps the card of turn q, presented on ch, so its permission
// requests wait for a decision.
func (a *approvals) sinkFor(card cardSink, q *queued, ch Channel) turnSink {
	return &askingSink{cardSink: card, approvals: a, turn: q, ch: ch}
}

// askingSink is the sink of a turn under agent.approval ask: what the agent
// produces goes to the card, and what it asks waits for a person.
type askingSink struct {
	cardSink
	approvals *approvals
	// turn and ch are the message the turn runs and its channel: who asked,
	// and where to ask.
	turn *queued
	ch   Channel

	mu    sync.Mutex
	waits []*wait // oldest first
}

// RequestPermission waits, with the card saying what is asked, until someone
// allowed decides with /approve or /deny on any replica, the request times
// out (agent.approval_timeout: declined), or the turn ends (cancelled).
func (s *askingSink) RequestPermission(ctx context.Context, req acp.RequestPermissionRequest) acp.RequestPermissionResponse {
	return s.approvals.ask(ctx, req, s)
}

// settle answers every request the turn still waits on as cancelled, and
// returns once each is answered and its card says so. The turn runner calls
// it when the agent's turn is over, before the final status.
func (s *askingSink) settle() {
	s.mu.Lock()
	list := append([]*wait(nil), s.waits...)
	s.mu.Unlock()
	for _, w := range list {
		w.cancel()
		<-w.done
	}
}

// ask records req, shows it on the turn's card and waits for its decision.
func (a *approvals) ask(ctx context.Context, req acp.RequestPermissionRequest, s *askingSink) acp.RequestPermissionResponse {
	short, full := describeRequest(req)
	if a.store == nil {
		s.Notice(acpbridge.Notice{Level: acpbridge.NoticeWarning, Text: "Declined: " + short + " (this store keeps no approvals)"})
		return pick(req, VerdictDeny)
	}
	if a.grantedBefore(ctx, s, req, short) {
		return pick(req, VerdictApprove)
	}
	g, grantable := grantFor(req)
	rec := approvalRequest{Requester: s.turn.User, Session: string(req.SessionId), What: short,
		Replica: a.cfg.Replica, Asked: time.Now().UnixMilli(), Approvers: a.cfg.Access.Approvers}
	if grantable {
		rec.Always = g.what()
	}
	body, _ := json.Marshal(rec)
	id, err := a.store.OpenApproval(ctx, s.turn.Conversation, body)
	if err != nil {
		a.log.Error("record approval request", "conv", s.turn.Conversation, "err", err)
		s.Notice(acpbridge.Notice{Level: acpbridge.NoticeWarning, Text: "Declined: " + short + " (" + textApprovalStoreDown + ")"})
		return pick(req, VerdictDeny)
	}
	ask := ApprovalAsk{ID: id, Conversation: s.turn.conversation(), Requester: rec.Requester, What: short, Turn: s.turn.turn(),
		Approvers: a.cfg.Access.approvers(), Deciders: a.cfg.Access.asked(rec.Requester), For: a.cfg.Access.forCard(rec.Requester)}
	s.audit.approvalAsked(ctx, id, withoutEnv(short))
	d, noticed := a.await(ctx, s, ask, full)
	// settle (the turn's end) waits for this: the card's final status must
	// follow the decision's line, not race it.
	defer noticed()
	s.audit.approvalDecided(context.WithoutCancel(ctx), id, d)
	a.log.Info("approval decided", "conv", ask.Conversation.Key(), "approval", id, "verdict", string(d.Verdict),
		"by", d.By, "requester", ask.Requester, "what", withoutEnv(short), "waited", time.Since(time.UnixMilli(rec.Asked)).Round(time.Millisecond))
	a.cfg.Observer.Approval(string(d.Verdict))
	if ap, ok := s.ch.(Approver); ok {
		ap.ApprovalDecided(context.WithoutCancel(ctx), ask, d)
	}
	granted := ""
	if d.Verdict == VerdictAlways && grantable {
		g.ID, g.By = id, d.By
		granted = a.recordGrant(ctx, ask.Conversation.Key(), g)
	}
	s.Notice(decisionNotice(ask, d, a.cfg.ApprovalTimeout, granted))
	return pick(req, d.Verdict)
}

// await shows the request on the card and waits for its decision: an event
// from any replica, the record found by a poll (an event can be missed), the
// timeout, or the end of the turn. The caller calls noticed once the card
// says what was decided; until then settle waits.
func (a *approvals) await(ctx context.Context, s *askingSink, ask ApprovalAsk, full string) (d ApprovalDecision, noticed func()) {
	wctx, cancel := context.WithCancel(ctx)
	w := &wait{id: ask.ID, cancel: cancel, done: make(chan struct{})}
	noticed = func() { close(w.done) }
	defer cancel()

	events := make(chan struct{}, 1)
	ready := make(chan struct{})
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		err := a.store.WatchApprovals(wctx, func() { close(ready) }, func(conv string, id int64) {
			if conv == ask.Conversation.Key() && id == ask.ID {
				select {
				case events <- struct{}{}:
				default:
				}
			}
		})
		if err != nil {
			a.log.Warn("watch approval decisions; polling instead", "conv", ask.Conversation.Key(), "err", err)
		}
	}()
	defer func() { cancel(); <-watched }()
	select { // a decision made before the subscription is live is found by the first look
	case <-ready:
	case <-watched:
	case <-wctx.Done():
	}

	hint := textApprovalHint(ask.ID)
	if ap, ok := s.ch.(Approver); ok {
		hint = ap.AskApproval(wctx, ask)
	}
	if !a.cfg.Access.requesterDecides() {
		// The requester cannot decide: the card says who does, and how.
		hint = textApproverHint(ask)
	}
	w.status = cards.WaitingApproval(textApprovalStatus(ask, hint))
	s.Notice(acpbridge.Notice{Level: acpbridge.NoticeInfo, Text: textApprovalAsked(ask, full)})
	s.show(w)
	defer func() { s.hide(w, wctx.Err() != nil) }()

	timer := time.NewTimer(a.cfg.ApprovalTimeout)
	defer timer.Stop()
	poll := time.NewTicker(a.cfg.PollInterval)
	defer poll.Stop()
	for {
		if d, ok := a.recorded(wctx, ask); ok {
			return d, noticed
		}
		select {
		case <-events:
		case <-poll.C:
		case <-timer.C:
			return a.settleAs(ctx, ask, VerdictTimeout), noticed
		case <-wctx.Done():
			return a.settleAs(ctx, ask, VerdictCancelled), noticed
		}
	}
}

// recorded returns the decision in the store, if there is one.
func (a *approvals) recorded(ctx context.Context, ask ApprovalAsk) (ApprovalDecision, bool) {
	b, err := a.store.ApprovalDecision(ctx, ask.Conversation.Key(), ask.ID)
	if err != nil {
		if ctx.Err() == nil {
			a.log.Warn("look for an approval decision", "conv", ask.Conversation.Key(), "approval", ask.ID, "err", err)
		}
		return ApprovalDecision{}, false
	}
	var d ApprovalDecision
	if b == nil || json.Unmarshal(b, &d) != nil {
		return ApprovalDecision{}, false
	}
	return d, true
}

// settleAs records a decision the engine makes itself (timeout, turn ended).
// A person's decision that landed first wins, except that a turn that ended
// cannot run anything any more.
func (a *approvals) settleAs(ctx context.Context, ask ApprovalAsk, v Verdict) ApprovalDecision {
	mine := ApprovalDecision{Verdict: v, At: time.Now().UnixMilli()}
	body, _ := json.Marshal(mine)
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	_, current, _, err := a.store.DecideApproval(sctx, ask.Conversation.Key(), ask.ID, body)
	if err != nil {
		a.log.Error("record approval "+string(v), "conv", ask.Conversation.Key(), "approval", ask.ID, "err", err)
		return mine
	}
	var d ApprovalDecision
	if json.Unmarshal(current, &d) != nil || v == VerdictCancelled {
		return mine
	}
	return d
}

// show makes w the card's status unless an older request of the turn is
// still waiting.
func (s *askingSink) show(w *wait) {
	s.mu.Lock()
	s.waits = append(s.waits, w)
	first := s.waits[0]
	s.mu.Unlock()
	s.pub.SetStatus(first.status)
}

// hide drops w; the card shows the next waiting request, or running again
// while the turn goes on (ended: it does not, and its runner sets the final
// status).
func (s *askingSink) hide(w *wait, ended bool) {
	s.mu.Lock()
	for i, x := range s.waits {
		if x == w {
			s.waits = append(s.waits[:i:i], s.waits[i+1:]...)
			break
		}
	}
	var next *wait
	if len(s.waits) > 0 {
		next = s.waits[0]
	}
	s.mu.Unlock()
	switch {
	case next != nil:
		s.pub.SetStatus(next.status)
	case ended:
	default:
		s.pub.SetStatus(cards.Running())
	}
}

// pick is the agent's answer for a verdict: the request's option of the
// matching kind, or cancelled when it offers none (never a guess that grants
// more).
func pick(req acp.RequestPermissionRequest, v Verdict) acp.RequestPermissionResponse {
	var kinds []acp.PermissionOptionKind
	switch v {
	case VerdictApprove:
		kinds = []acp.PermissionOptionKind{acp.PermissionOptionKindAllowOnce}
	case VerdictAlways:
		// Once: what comes again is wecodex's to decide (see grant), not
		// the agent's session cache.
		kinds = []acp.PermissionOptionKind{acp.PermissionOptionKindAllowOnce}
	case VerdictDeny, VerdictTimeout:
		kinds = []acp.PermissionOptionKind{acp.PermissionOptionKindRejectOnce, acp.PermissionOptionKindRejectAlways}
	default:
		return acpbridge.Cancelled()
	}
	for _, k := range kinds {
		for _, o := range req.Options {
			if o.Kind == k {
				return acpbridge.Selected(o.OptionId)
			}
		}
	}
	return acpbridge.Cancelled()
}
