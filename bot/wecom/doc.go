// Package wecom owns what WeCom (企业微信) channels share: the callback crypto
// (signature, AES-256-CBC), the AI-bot callback and reply wire formats, the
// content of a user message (the same JSON on the webhook and the long
// connection), fetching and decrypting a message's files, response_url
// delivery, the template card (its JSON and field limits, and the progress
// card a turn's cards.Card renders to) and WeCom's byte caps. The channels
// themselves live in webhook, longconn (the AI bot) and app (the self-built
// app).
//
// The protocol layer is deliberately free of bot logic: it verifies, decrypts
// and parses what WeCom sends, and builds and encrypts what WeCom expects
// back. internal/wecomtest plays WeCom's side with the same wire format, for
// tests and the playground.
package wecom
