// Package wecom owns what WeCom (企业微信) channels share: the callback crypto
// (signature, AES-256-CBC), the AI-bot callback and reply wire formats, and
// response_url delivery; and, for now, the AI-bot webhook channel itself.
//
// The protocol layer is deliberately free of bot logic: it verifies, decrypts
// and parses what WeCom sends, and builds and encrypts what WeCom expects
// back. internal/wecomtest plays WeCom's side with the same wire format, for
// tests and the playground.
package wecom
