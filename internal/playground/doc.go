// Package playground is a local chat page that plays WeCom against the bot's
// own AI-bot webhook, so a newcomer can watch a turn without a WeCom account.
//
// The page never talks to the bot engine. Its backend is a WeCom client made
// of [wecomtest]: each message typed on the page becomes a callback signed and
// encrypted exactly as WeCom signs it, POSTed to the AI-bot endpoint as the
// configured user, and the stream the bot opens is followed with refresh
// callbacks until a frame is finished. Answers the bot continues through
// response_url arrive at a [wecomtest.ResponseURLServer] and are appended to
// their card. Access control, dedupe, queues and commands are therefore the
// bot's own: a user the bot does not allow sees its refusal.
//
// With Config.LongConn it plays WeCom's long-connection server instead (the
// fake in [wecomtest], on a loopback port the bot dials): a typed message is
// pushed as aibot_msg_callback, and the frames the bot pushes back on its
// req_id, and any aibot_send_msg continuation, make the card.
//
// What the page shows is derived from the frames alone, as WeCom's client
// would: readStream, with the words cards writes frames with, types a frame
// into its progress section (the leading <think>…</think> block), its
// body (markdown rendered on the server with raw HTML shown escaped) and its
// status; the finish flag says a turn is done.
package playground
