// Package bot is the platform-neutral engine between chat channels and the
// agent, in four collaborators: intake (dedupe, access, commands, enqueue),
// the scheduler (one turn at a time per conversation across every replica: a
// Redis lease with a fencing token plus a FIFO queue, affinity, heartbeat,
// /stop), the turn runner (session, prompt, outcome, card) and approvals (an
// agent's permission request, asked through the turn's sink, shown on the
// channel and decided on any replica). An [Observer] is told what they do.
//
// The engine knows no platform. It declares [Channel]: a channel turns its
// callbacks into a [Message] for [Engine.Receive], in a [Conversation] of a
// kind of its own, and shows what the engine hands back (short replies, and
// each turn's card snapshots through a [Presenter]); a queued message
// records its conversation, its channel and its [ReplyTo] handle so
// whichever replica runs the turn presents it there. The WeCom channels are
// in bot/wecom (webhook, longconn, app); a test's chat channel needs nothing
// of bot but its exported API.
//
// What the engine needs from Redis is declared here ([Store], one interface
// per purpose); package store implements each part with a type of its own.
package bot
