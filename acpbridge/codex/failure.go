package codex

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/wecodex/wecodex/acpbridge"
)

// defaultMaxReconnects bounds how many times a turn may see Codex retry a
// model request that never reached the provider. Codex 0.171.0 retries such
// a request forever ("Reconnecting... waiting for network", backing off to
// minutes), whatever the provider's request_max_retries and
// stream_max_retries say: over a websocket (its default provider) it first
// counts its own stream budget ("Reconnecting... 2/5" to "5/5", about a
// second apart), then goes on over HTTP uncounted. Four retries take 4 s on
// the websocket and 35-50 s over HTTP.
const defaultMaxReconnects = 4

// errorInfo is Codex's codexErrorInfo, reduced to what decides a kind.
type errorInfo struct {
	code string // "unauthorized", "responseStreamDisconnected", ...
	// status is the provider's HTTP status; 0 when the request never got
	// an answer (no network, refused, DNS).
	status int
}

// connectionCodes are the codexErrorInfo variants of a request to the model
// provider that failed or broke.
var connectionCodes = map[string]bool{
	"httpConnectionFailed":           true,
	"responseStreamConnectionFailed": true,
	"responseStreamDisconnected":     true,
	"responseTooManyFailedAttempts":  true,
}

func parseErrorInfo(raw json.RawMessage) errorInfo {
	var code string
	if json.Unmarshal(raw, &code) == nil {
		return errorInfo{code: code}
	}
	var obj map[string]struct {
		HTTPStatusCode *int `json:"httpStatusCode"`
	}
	if json.Unmarshal(raw, &obj) != nil || len(obj) != 1 {
		return errorInfo{}
	}
	for k, v := range obj {
		info := errorInfo{code: k}
		if v.HTTPStatusCode != nil {
			info.status = *v.HTTPStatusCode
		}
		return info
	}
	return errorInfo{}
}

// kind is the agent failure kind this error means.
func (i errorInfo) kind() acpbridge.ErrorKind {
	switch {
	case i.code == "unauthorized", i.status == 401, i.status == 403:
		return acpbridge.KindNotAuthenticated
	case connectionCodes[i.code] && i.status == 0:
		return acpbridge.KindProviderUnreachable
	}
	return acpbridge.KindOther
}

// turnFailure is the error of a turn Codex reports failed.
func turnFailure(e *turnError) error {
	if e == nil || e.Message == "" {
		return errors.New("codex turn failed")
	}
	err := errors.New(withDetails(e.Message, e.AdditionalDetails))
	if k := parseErrorInfo(e.CodexErrorInfo).kind(); k != acpbridge.KindOther {
		return acpbridge.E(k, err)
	}
	return err
}

// turnErrorNotice handles Codex's `error` notification for the running turn
// on the read loop. The card gets one line per kind of trouble, not one per
// retry: the first retry notice is shown, later ones are not; a final error
// is held until turn/completed, which carries it again as the turn's failure
// (then it is dropped, the card's status says it). A turn whose requests
// never reach the provider is interrupted after maxReconnects retries and
// fails as provider-unreachable.
func (a *Agent) turnErrorNotice(c *conn, th *thread, ts *turnState, params []byte) {
	var n errorNotification
	if err := json.Unmarshal(params, &n); err != nil {
		a.log.Warn("decode codex error notification", "err", err)
		return
	}
	if !n.WillRetry {
		e := n.Error
		ts.finalError = &e
		return
	}
	info := parseErrorInfo(n.Error.CodexErrorInfo)
	unreachable := info.kind() == acpbridge.KindProviderUnreachable && ts.failure == nil
	if unreachable {
		ts.reconnects++
	}
	if !ts.retryShown {
		ts.retryShown = true
		// Codex's words can carry the provider's URL and its raw answer:
		// they go to the log, the card gets one line and the kind.
		a.log.Warn("codex retries a model request", "thread", th.id, "kind", info.kind().String(),
			"attempt", ts.reconnects, "detail", withDetails(n.Error.Message, n.Error.AdditionalDetails))
		text := retryText(info.kind())
		if unreachable {
			text = fmt.Sprintf("Reconnecting %d/%d: %s", ts.reconnects, a.maxReconnects(), text)
		}
		ts.sink.Notice(acpbridge.Notice{Level: acpbridge.NoticeWarning, Text: text})
	}
	if !unreachable || ts.reconnects < a.maxReconnects() {
		return
	}
	detail := n.Error.Message
	if n.Error.AdditionalDetails != nil && *n.Error.AdditionalDetails != "" {
		detail = *n.Error.AdditionalDetails
	}
	ts.failure = acpbridge.E(acpbridge.KindProviderUnreachable,
		fmt.Errorf("codex could not reach the model provider (%d attempts): %s", ts.reconnects, detail))
	a.log.Warn("codex cannot reach its model provider; ending the turn", "thread", th.id, "attempts", ts.reconnects)
	if turnID, ok := ts.idOrRequestCancel(); ok {
		a.interruptAsync(c, th.id, turnID)
	}
}

// retryText is the card's line for a model request Codex retries, by
// kind: never Codex's own words (see turnErrorNotice).
func retryText(k acpbridge.ErrorKind) string {
	switch k {
	case acpbridge.KindProviderUnreachable:
		return "the model provider cannot be reached (provider unreachable; retrying)"
	case acpbridge.KindNotAuthenticated:
		return "The model provider refused the request (not authenticated; retrying)"
	}
	return "The model request failed (other; retrying)"
}

func (a *Agent) maxReconnects() int {
	if a.opts.MaxReconnects > 0 {
		return a.opts.MaxReconnects
	}
	return defaultMaxReconnects
}

// flushFinalError shows a held final error unless the turn's own failure
// says the same.
func flushFinalError(ts *turnState, t turn) {
	e := ts.finalError
	ts.finalError = nil
	if e == nil || (t.Status == "failed" && t.Error != nil && t.Error.Message == e.Message) {
		return
	}
	ts.sink.Notice(acpbridge.Notice{Level: acpbridge.NoticeError, Text: withDetails(e.Message, e.AdditionalDetails)})
}
