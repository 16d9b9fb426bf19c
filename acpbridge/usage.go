package acpbridge

import (
	"encoding/json"

	acp "github.com/coder/acp-go-sdk"
)

// Tokens is a count of model tokens by kind, as Codex reports them in
// thread/tokenUsage/updated (TokenUsageBreakdown).
type Tokens struct {
	Input       int64 `json:"input"`
	CachedInput int64 `json:"cached_input"`
	Output      int64 `json:"output"`
	Reasoning   int64 `json:"reasoning"`
	Total       int64 `json:"total"`
}

// Add is t plus u, kind by kind.
func (t Tokens) Add(u Tokens) Tokens {
	return Tokens{Input: t.Input + u.Input, CachedInput: t.CachedInput + u.CachedInput, Output: t.Output + u.Output,
		Reasoning: t.Reasoning + u.Reasoning, Total: t.Total + u.Total}
}

// Sub is t minus u, kind by kind.
func (t Tokens) Sub(u Tokens) Tokens {
	return Tokens{Input: t.Input - u.Input, CachedInput: t.CachedInput - u.CachedInput, Output: t.Output - u.Output,
		Reasoning: t.Reasoning - u.Reasoning, Total: t.Total - u.Total}
}

// Usage is what one usage update says about tokens: the last model
// request's, and the thread's total so far. A turn's usage is the total at
// its last update less the total before its first request (first Total −
// first Last), which a repeated notification cannot inflate.
type Usage struct {
	Last  Tokens `json:"last"`
	Total Tokens `json:"total"`
}

// usageMetaKey is where a usage_update carries Usage in its _meta (ACP's
// extension point), so a client of wecodex's ACP agent gets it too.
const usageMetaKey = "wecodex.usage"

// WithUsage returns u carrying usage in its _meta.
func WithUsage(u *acp.SessionUsageUpdate, usage Usage) *acp.SessionUsageUpdate {
	if u.Meta == nil {
		u.Meta = map[string]any{}
	}
	u.Meta[usageMetaKey] = usage
	return u
}

// UsageOf is the Usage a usage_update carries in its _meta: the value
// itself in process, or its JSON form after an ACP hop.
func UsageOf(u *acp.SessionUsageUpdate) (Usage, bool) {
	if u == nil || u.Meta == nil {
		return Usage{}, false
	}
	switch v := u.Meta[usageMetaKey].(type) {
	case Usage:
		return v, true
	case nil:
		return Usage{}, false
	default:
		b, err := json.Marshal(v)
		if err != nil {
			return Usage{}, false
		}
		var out Usage
		if json.Unmarshal(b, &out) != nil {
			return Usage{}, false
		}
		return out, true
	}
}
