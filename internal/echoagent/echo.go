// Package echoagent is the smallest acpbridge.Agent, for runnable examples:
// every prompt is answered with a thought and "answer to: <text>". It needs
// no model and no process.
package echoagent

import (
	"context"
	"fmt"
	"sync"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge"
)

// Agent answers every prompt at once.
type Agent struct {
	mu   sync.Mutex
	next int
}

var _ acpbridge.Agent = (*Agent)(nil)

// NewSession names sessions echo-1, echo-2, ….
func (a *Agent) NewSession(context.Context, string) (acp.SessionId, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.next++
	return acp.SessionId(fmt.Sprint("echo-", a.next)), nil
}

// LoadSession has nothing to replay: an echo keeps no history.
func (a *Agent) LoadSession(context.Context, acp.SessionId, string, acpbridge.Sink) error {
	return acpbridge.ErrLoadUnsupported
}

// Prompt sends a thought, then the answer, and ends the turn.
func (a *Agent) Prompt(_ context.Context, _ acp.SessionId, p acpbridge.Prompt, sink acpbridge.Sink) (acp.StopReason, error) {
	text := p.Text
	sink.Update(acp.UpdateAgentThoughtText("Reading the question."))
	sink.Update(acp.UpdateAgentMessageText("answer to: " + text))
	return acp.StopReasonEndTurn, nil
}

// Cancel has nothing to stop: a turn ends before Prompt returns.
func (a *Agent) Cancel(context.Context, acp.SessionId) error { return nil }

// Close has nothing to release.
func (a *Agent) Close() error { return nil }
