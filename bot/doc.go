// Package bot is the platform-neutral engine between a chat platform and the
// agent: it dedupes platform messages, applies access control, answers
// commands, keeps one turn at a time per conversation across every replica
// (a Redis lease with a fencing token plus a FIFO queue), runs each turn
// against an [acpbridge.Agent], and publishes the turn's card frames to the
// shared store so any replica can answer a refresh.
//
// The engine knows nothing about WeCom. A platform layer (bot/wecom) turns a
// callback into a [Message], calls [Engine.Receive] and answers with the
// returned [Frame]; refreshes are answered with [Engine.Frame]; answer text
// that no longer fits the platform's stream reaches the user through the
// [Deliverer] the platform layer provides.
//
// What the engine needs from Redis is declared here ([Store]); package store
// implements it.
package bot
