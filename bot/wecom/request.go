package wecom

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// MaxBodyBytes caps a callback body. WeCom's callbacks are a few KiB; anything
// near this is not WeCom.
const MaxBodyBytes = 1 << 20

// TimestampWindow is how far a callback's timestamp may be from our clock.
// Five minutes covers clock skew and WeCom's retries of an unanswered callback
// (3 more deliveries, seconds apart) while keeping a captured request from
// being replayed for long. Stream refreshes are fresh requests with fresh
// timestamps, so the 6-minute stream life does not need a wider window.
const TimestampWindow = 5 * time.Minute

var (
	// ErrBodyTooLarge means the body exceeded MaxBodyBytes (answer 413).
	ErrBodyTooLarge = errors.New("wecom: request body too large")
	// ErrStaleTimestamp means the timestamp is outside TimestampWindow.
	ErrStaleTimestamp = errors.New("wecom: timestamp outside the accepted window")
	// ErrMalformed means the request or the decrypted callback is not in
	// WeCom's format; the wrapping error names the part that is wrong.
	ErrMalformed = errors.New("wecom: malformed callback")
)

// Query is the signed part of a callback URL:
// ?msg_signature=…&timestamp=…&nonce=…[&echostr=…].
type Query struct {
	Signature string
	Timestamp string
	Nonce     string
	EchoStr   string // only on the GET URL check
}

// ParseQuery reads a callback's query parameters; all but echostr are required.
func ParseQuery(v url.Values) (Query, error) {
	q := Query{
		Signature: v.Get("msg_signature"),
		Timestamp: v.Get("timestamp"),
		Nonce:     v.Get("nonce"),
		EchoStr:   v.Get("echostr"),
	}
	for _, p := range []struct{ name, val string }{
		{"msg_signature", q.Signature}, {"timestamp", q.Timestamp}, {"nonce", q.Nonce},
	} {
		if p.val == "" {
			return Query{}, fmt.Errorf("%w: query parameter %s is missing", ErrMalformed, p.name)
		}
	}
	return q, nil
}

// Values is the query as WeCom puts it on the URL.
func (q Query) Values() url.Values {
	v := url.Values{"msg_signature": {q.Signature}, "timestamp": {q.Timestamp}, "nonce": {q.Nonce}}
	if q.EchoStr != "" {
		v.Set("echostr", q.EchoStr)
	}
	return v
}

// ReadBody reads at most MaxBodyBytes from r. A longer body yields
// ErrBodyTooLarge, read no further than one byte past the cap.
func ReadBody(r io.Reader) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxBodyBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read callback body: %w", err)
	}
	if len(b) > MaxBodyBytes {
		return nil, fmt.Errorf("%w: more than %d bytes", ErrBodyTooLarge, MaxBodyBytes)
	}
	return b, nil
}

// CheckTimestamp rejects a callback timestamp (Unix seconds, as WeCom sends
// it) more than window before or after now.
func CheckTimestamp(timestamp string, now time.Time, window time.Duration) error {
	sec, err := strconv.ParseInt(timestamp, 10, 64)
	if err != nil {
		return fmt.Errorf("%w: timestamp %s is not Unix seconds", ErrMalformed, echo(timestamp))
	}
	d := now.Sub(time.Unix(sec, 0))
	if d > window || d < -window {
		return fmt.Errorf("%w: timestamp is %s away from now, limit %s", ErrStaleTimestamp, d.Round(time.Second), window)
	}
	return nil
}

// VerifyURL answers WeCom's GET URL check: it verifies the signature over
// echostr and returns the decrypted echostr, which is the whole reply body.
func (c *Crypter) VerifyURL(q Query) ([]byte, error) {
	if q.EchoStr == "" {
		return nil, fmt.Errorf("%w: query parameter echostr is missing", ErrMalformed)
	}
	if err := c.Verify(q.Signature, q.Timestamp, q.Nonce, q.EchoStr); err != nil {
		return nil, fmt.Errorf("verify URL check: %w", err)
	}
	msg, err := c.Decrypt(q.EchoStr)
	if err != nil {
		return nil, fmt.Errorf("verify URL check: %w", err)
	}
	return msg, nil
}

// CheckURLRequest does every check of WeCom's GET URL check in the safe
// order (query, timestamp within TimestampWindow of now, signature) and
// returns the decrypted echostr, the whole reply body. Map its error to a
// status with HTTPStatus.
func (c *Crypter) CheckURLRequest(r *http.Request, now time.Time) ([]byte, error) {
	q, err := ParseQuery(r.URL.Query())
	if err != nil {
		return nil, err
	}
	if err := CheckTimestamp(q.Timestamp, now, TimestampWindow); err != nil {
		return nil, err
	}
	return c.VerifyURL(q)
}

// encryptedBody is a callback POST body: {"encrypt":"…"}.
type encryptedBody struct {
	Encrypt string `json:"encrypt"`
}

// OpenCallback verifies and decrypts a callback POST body and returns the
// callback JSON. The signature is checked before any decryption.
func (c *Crypter) OpenCallback(q Query, body []byte) ([]byte, error) {
	var b encryptedBody
	if err := json.Unmarshal(body, &b); err != nil {
		return nil, fmt.Errorf("%w: body is not JSON: %v", ErrMalformed, err)
	}
	if b.Encrypt == "" {
		return nil, fmt.Errorf("%w: body has no encrypt field", ErrMalformed)
	}
	if err := c.Verify(q.Signature, q.Timestamp, q.Nonce, b.Encrypt); err != nil {
		return nil, fmt.Errorf("open callback: %w", err)
	}
	msg, err := c.Decrypt(b.Encrypt)
	if err != nil {
		return nil, fmt.Errorf("open callback: %w", err)
	}
	return msg, nil
}

// OpenRequest does every check a callback POST needs, in the safe order:
// query present, timestamp within TimestampWindow of now, body within
// MaxBodyBytes, signature, decryption. It returns the query (its timestamp and
// nonce are reused for the reply) and the callback JSON. Map its error to a
// status with HTTPStatus.
func (c *Crypter) OpenRequest(r *http.Request, now time.Time) (Query, []byte, error) {
	q, err := ParseQuery(r.URL.Query())
	if err != nil {
		return Query{}, nil, err
	}
	if err := CheckTimestamp(q.Timestamp, now, TimestampWindow); err != nil {
		return Query{}, nil, err
	}
	body, err := ReadBody(r.Body)
	if err != nil {
		return Query{}, nil, err
	}
	msg, err := c.OpenCallback(q, body)
	if err != nil {
		return Query{}, nil, err
	}
	return q, msg, nil
}

// HTTPStatus is the status to answer for an error from this package's request
// checks: 413 for a too-large body, 401 for a bad signature, 403 for a stale
// timestamp, 400 for anything malformed or undecryptable, 500 otherwise.
// ErrUnsupported is not a request error: answer such a callback normally.
func HTTPStatus(err error) int {
	switch {
	case err == nil:
		return http.StatusOK
	case errors.Is(err, ErrBodyTooLarge):
		return http.StatusRequestEntityTooLarge
	case errors.Is(err, ErrSignature):
		return http.StatusUnauthorized
	case errors.Is(err, ErrStaleTimestamp):
		return http.StatusForbidden
	case errors.Is(err, ErrMalformed), errors.Is(err, ErrDecrypt):
		return http.StatusBadRequest
	default:
		return http.StatusInternalServerError
	}
}
