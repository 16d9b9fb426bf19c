// Package wecom owns what WeCom (企业微信) channels share, the AI bot's
// (webhook, longconn) and the self-built app's (app): the callback crypto
// (signature, AES-256-CBC) and the checks of a callback request (signed
// query, body cap, timestamp window, GET URL check or POST), WeCom's
// conversation kinds as bot.Conversation values, the AI-bot callback and
// reply wire formats, the content of a user message (the same JSON on the
// webhook and the long connection), fetching and decrypting a message's
// files from wecom.allowed_hosts and naming them, response_url delivery and
// the APIError every channel returns for a non-zero errcode, the
// approval-button codec, the template card (its JSON and field limits, and
// the progress card a turn's cards.Card renders to) and WeCom's byte caps
// (an AI-bot stream's, an app markdown message's).
//
// The protocol layer is deliberately free of engine logic: it verifies,
// decrypts and parses what WeCom sends, and builds and encrypts what WeCom
// expects back, in bot's vocabulary (conversations, attachments, verdicts).
// internal/wecomtest plays WeCom's side with the same wire format, for tests
// and the playground.
package wecom
