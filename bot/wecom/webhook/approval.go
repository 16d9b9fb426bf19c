package webhook

import (
	"context"
	"fmt"

	"github.com/wecodex/wecodex/bot"
)

var _ bot.Approver = (*Channel)(nil)

// AskApproval is how to decide in webhook mode: a text command. The passive
// reply to a refresh cannot carry buttons, and response_url is kept for the
// answer's continuations, so the card names the command to send.
func (c *Channel) AskApproval(_ context.Context, a bot.ApprovalAsk) string {
	return fmt.Sprintf("reply /approve, /approve always or /deny (#%d)", a.ID)
}

// ApprovalDecided changes nothing: the card's progress section already says
// how the request was decided.
func (c *Channel) ApprovalDecided(context.Context, bot.ApprovalAsk, bot.ApprovalDecision) {}
