// Package app is the WeCom self-built app (自建应用) channel: encrypted XML
// callbacks in, and out through the app API (silenceper/wechat's work client
// where it has the call, our own request types where it lacks one). The app
// cannot stream: a turn shows a progress card with a stop button, updated
// once when the turn ends, and the answer as markdown messages paced within
// WeCom's per-user rate. Apps receive no group messages, so every
// conversation is a 1:1 one (app:<userid>).
package app
