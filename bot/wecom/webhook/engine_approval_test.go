package webhook_test

import (
	"context"
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/bot/wecom/webhook"
	"github.com/wecodex/wecodex/internal/testenv"
)

// deafStore loses every approval announcement: the subscription comes up,
// and nothing ever arrives on it.
type deafStore struct{ *testenv.Stores }

func (deafStore) WatchApprovals(ctx context.Context, ready func(), _ func(string, int64)) error {
	ready()
	<-ctx.Done()
	return nil
}

// A decision whose announcement never reaches the waiting turn is still
// taken: the record is found on the next poll, and the agent gets the
// allow-once option.
func TestApprovalFoundByPollWhenTheEventIsMissed(t *testing.T) {
	cfg := testConfig(t, "a")
	cfg.Access.Approvers = []string{bot.ApproverRequester} // alice decides her own
	r := newReplica(t, deafStore{testenv.OpenStores(t, testenv.Prefix(t, "bot"))}, cfg)
	answers := make(chan acp.RequestPermissionResponse, 1)
	r.agent.answers = answers
	r.run(t)
	stream := receive(t, r.e, msg("m1", "alice", "ask")).StreamID
	waitFrame(t, r.e, stream, "waiting for approval", func(f webhook.Frame) bool {
		return strings.Contains(f.Content, "⏸ Waiting for approval: #1 `run ls` — reply /approve, /approve always or /deny (#1)")
	})
	if got, want := receive(t, r.e, msg("m2", "alice", "/approve")).Content, "OK — #1 approved by alice: `run ls`"; got != want {
		t.Fatalf("/approve: %q, want %q", got, want)
	}
	resp := <-answers
	if resp.Outcome.Selected == nil || resp.Outcome.Selected.OptionId != "yes" {
		t.Fatalf("agent's answer = %+v, want the allow-once option", resp.Outcome)
	}
	got := waitFinished(t, r.e, stream).Content
	if !strings.Contains(got, "ℹ️ #1 approved by alice: `run ls`") || strings.Contains(got, "Waiting for approval") {
		t.Fatalf("finished card %q: want the approval noted and no longer waiting", got)
	}
}
