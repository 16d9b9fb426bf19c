// Package cards owns what the user sees of one turn, whatever the platform:
// the card model fed by ACP session updates, the neutral renderers (a stream
// frame that a platform replaces as the card grows, and the answer as
// markdown messages), the byte budgets a renderer keeps to when a platform
// passes its caps, and the throttling of frames ([Publisher]). A platform's
// own shapes (WeCom's template card, its byte caps) live with the platform,
// in bot/wecom; the playground's HTML renderer lives with the playground.
// Both read a card through its exported view ([Card.Progress],
// [Card.Status], [Card.Body]).
//
// A Card has three parts. The progress section holds everything that is not
// the answer: thought and commentary text grouped by message id, tool calls
// updated in place by tool call id, the current plan, and notices (warnings,
// errors, policy decisions). The body holds the answer: agent message text in
// arrival order. The status says where the turn is (running, waiting for
// approval, done, cancelled, failed); a message waiting its turn has no card
// yet (the engine shows its queue position).
//
// Renderers are pure functions of a Card. None of them ever drops body text:
// when a limit is reached, the stream renderer says where the current
// message must end and where the next one continues (see [Card.Stream]).
//
// A Card is not safe for concurrent use; [Publisher] owns one for a turn,
// applies updates under a mutex and renders frames on its own goroutine.
package cards
