// Package wecom owns everything WeCom (企业微信): the callback crypto shared by
// the AI bot (智能机器人) and the self-built app, the AI-bot callback and reply
// wire formats, the AI-bot webhook and long connection, the self-built app and
// its token cache.
//
// The protocol layer in this package is deliberately free of bot logic: it
// verifies, decrypts and parses what WeCom sends, and builds and encrypts what
// WeCom expects back. Its sub-package wecomsim plays WeCom toward a bot
// endpoint with exactly the same wire format, for tests and the playground.
package wecom
