package wecom

import (
	"crypto/rand"
	"encoding/hex"
)

// RandomHex is n random bytes in hex: the random part of the ids WeCom wants
// unique (nonces, req_ids, task_ids) and of a replica's default name.
func RandomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported platforms
	return hex.EncodeToString(b)
}
