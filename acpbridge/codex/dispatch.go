package codex

import (
	"context"
	"encoding/json"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge"
)

// discardSink receives what belongs to no running turn (a turn whose Prompt
// gave up, or a thread nobody is prompting): bookkeeping still runs, output
// goes nowhere, and nobody is asked anything.
type discardSink struct{}

func (discardSink) Update(acp.SessionUpdate) {}
func (discardSink) Notice(acpbridge.Notice)  {}
func (discardSink) RequestPermission(context.Context, acp.RequestPermissionRequest) acp.RequestPermissionResponse {
	return acpbridge.Cancelled()
}

// sinkFor picks where a notification of this thread goes: the running turn's
// sink when the notification belongs to it.
func (th *thread) sinkFor(turnID []byte) acpbridge.Sink {
	if ts := th.runningTurn(turnID); ts != nil {
		return ts.sink
	}
	return discardSink{}
}

// handleNotification runs on the read loop for every notification. The
// delta notifications (nearly all traffic) are read with the allocation-free
// scanner; everything else is decoded with encoding/json.
func (a *Agent) handleNotification(c *conn, method, params []byte) {
	switch string(method) {
	case "item/agentMessage/delta", "item/reasoning/summaryTextDelta",
		"item/reasoning/textDelta", "item/commandExecution/outputDelta":
	default:
		a.handleOther(c, string(method), params)
		return
	}
	e, err := scanRouting(params)
	th := a.lookupThread(e.threadID)
	if th == nil || err != nil {
		return
	}
	sink := th.sinkFor(e.turnID)
	switch string(method) {
	case "item/agentMessage/delta":
		th.tr.agentDelta(e.itemID, e.delta, sink)
	case "item/commandExecution/outputDelta":
		th.tr.commandOutputDelta(e.itemID, e.delta, sink)
	default:
		th.tr.reasoningDelta(e.itemID, e.delta, sink)
	}
}

func (a *Agent) handleOther(c *conn, method string, params []byte) {
	e, _ := scanRouting(params)
	threadID, turnID := e.threadID, e.turnID
	var th *thread
	if threadID != nil {
		th = a.lookupThread(threadID)
	}

	if method == "thread/closed" {
		if threadID != nil {
			a.threadClosed(c, string(threadID))
		}
		return
	}
	if method == "turn/started" || method == "turn/completed" {
		if th != nil {
			a.turnEvent(c, th, method, params)
		}
		return
	}
	if translate := translation(method); translate != nil {
		if th != nil {
			if method == "item/started" {
				th.modelAnswered(turnID)
			}
			translate(th.tr, params, th.sinkFor(turnID))
		}
		return
	}
	if method == "error" {
		if ts := th.runningTurn(turnID); ts != nil {
			a.turnErrorNotice(c, th, ts, params)
		}
		return
	}

	n, ok := notice(method, params)
	if !ok {
		a.log.Debug("ignored codex notification", "method", method)
		return
	}
	if isAdminNotice(method) {
		a.adminWarning(n.Text)
		return
	}
	if ts := th.runningTurn(turnID); ts != nil {
		ts.sink.Notice(n)
	}
}

// runningTurn is the turn of th a notification naming turnID belongs to, nil
// when there is none (or its Prompt gave up). A nil th has no turn.
func (th *thread) runningTurn(turnID []byte) *turnState {
	if th == nil {
		return nil
	}
	ts := th.turn.Load()
	if !ts.live() {
		return nil
	}
	if ts.readID != "" && len(turnID) > 0 && string(turnID) != ts.readID {
		return nil
	}
	return ts
}

// modelAnswered resets the turn's reconnect count: the provider answered, so
// a later network failure gets a fresh budget.
func (th *thread) modelAnswered(turnID []byte) {
	if ts := th.runningTurn(turnID); ts != nil {
		ts.reconnects = 0
	}
}

// handleRequest answers a server-to-client request. Approvals are decided on
// their own goroutine; anything else is refused at once.
func (a *Agent) handleRequest(c *conn, id json.RawMessage, method string, params []byte) {
	switch method {
	case "item/commandExecution/requestApproval", "item/fileChange/requestApproval":
		a.approval(c, id, method, params)
	default:
		a.log.Warn("refused unsupported codex request", "method", method)
		if err := c.respondError(id, -32601, "wecodex does not support "+method); err != nil {
			a.log.Warn("answer codex request", "method", method, "err", err)
		}
	}
}

// translation is the translator step for a notification about a thread's
// items, plan or usage; nil for any other method.
func translation(method string) func(*translator, []byte, acpbridge.Sink) {
	switch method {
	case "item/started":
		return (*translator).itemStarted
	case "item/completed":
		return (*translator).itemCompleted
	case "item/reasoning/summaryPartAdded":
		return (*translator).reasoningPart
	case "turn/plan/updated":
		return (*translator).plan
	case "thread/tokenUsage/updated":
		return (*translator).usage
	}
	return nil
}

// turnEvent follows the running turn of th: turn/started gives its id,
// turn/completed ends it.
func (a *Agent) turnEvent(c *conn, th *thread, method string, params []byte) {
	var n turnNotification
	if err := json.Unmarshal(params, &n); err != nil {
		a.log.Warn("decode "+method, "err", err)
		return
	}
	id := n.Turn.ID
	if n.Turn.RootTurnID != "" {
		id = n.Turn.RootTurnID
	}
	ts := th.turn.Load()
	if ts == nil || !ts.sent.Load() || (ts.readID != "" && ts.readID != id) {
		return
	}
	if method == "turn/started" {
		ts.readID = id
		if ts.activate(id) {
			a.interruptAsync(c, th.id, id)
		}
		return
	}
	th.turn.CompareAndSwap(ts, nil)
	if !ts.detached.Load() {
		flushFinalError(ts, n.Turn)
	}
	ts.finish(n.Turn)
}

// routing is where a notification goes: the ids every thread notification
// carries, and a delta's text (still JSON-encoded), as slices of params.
type routing struct {
	threadID, turnID, itemID, delta []byte
}

// scanRouting reads the routing fields of params with the allocation-free
// scanner; the other fields are skipped.
func scanRouting(params []byte) (routing, error) {
	var r routing
	f := newFields(params)
	for {
		k, v, ok := f.next()
		if !ok {
			return r, f.err
		}
		switch string(k) {
		case "threadId":
			r.threadID, _, _ = rawString(v)
		case "turnId":
			r.turnID, _, _ = rawString(v)
		case "itemId":
			r.itemID, _, _ = rawString(v)
		case "delta":
			r.delta = v
		}
	}
}
