// Package store owns wecodex's shared state in Redis: the client (single node,
// Sentinel or Cluster through one go-redis UniversalClient), every key and its
// TTL (all in keys.go, under one configurable prefix), and the embedded
// in-memory Redis used when no address is configured.
//
// Other packages declare the small interfaces they need (acpbridge.PhaseStore,
// for one); *Store implements them without importing those packages.
package store
