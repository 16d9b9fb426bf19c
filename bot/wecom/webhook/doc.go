// Package webhook is the AI bot's webhook channel (wecom.aibot): WeCom POSTs
// each callback to us and pulls a reply stream's frames with refresh
// callbacks for a few minutes. So a turn's frames go into the shared store,
// where any replica answers a refresh; what outlives the stream window goes
// through the message's response_url, which takes one POST; what that cannot
// carry waits for /more.
package webhook
