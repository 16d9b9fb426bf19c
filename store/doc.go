// Package store owns wecodex's shared state in Redis: the client (single node,
// Sentinel or Cluster through one go-redis UniversalClient), every key and its
// TTL (all in keys.go, under one configurable prefix), and the embedded
// in-memory Redis used when no address is configured.
//
// A DB holds the client and the keys; beside it one small type per purpose
// (purposes.go) meets one consumer's interface: bot's Leases, Dedupe and
// Replicas, the webhook channel's Store, longconn's Store, the app's Store,
// acpbridge.PhaseStore. Those interfaces are declared by their users; this
// package imports none of them, so every method takes and returns plain
// types.
package store
