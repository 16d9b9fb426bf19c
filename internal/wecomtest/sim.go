// Package wecomtest plays WeCom toward a bot's AI-bot webhook endpoint: it
// builds callbacks, encrypts and signs them exactly as WeCom does, POSTs them,
// and verifies and decrypts what the bot answers. Tests use it in place of
// WeCom's servers, and the playground backend uses it to drive the real bot
// endpoint, so it must not import testing.
package wecomtest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"
)

// WeCom's timing, as documented for the AI bot.
const (
	// ReplyTimeout is how long WeCom waits for a callback's answer.
	ReplyTimeout = 5 * time.Second
	// VerifyTimeout is how long WeCom waits for the URL check's answer.
	VerifyTimeout = time.Second
	// TimeoutRetries is how many more times WeCom delivers an unanswered callback.
	TimeoutRetries = 3
	// StreamLimit is how long after the user's message WeCom keeps refreshing.
	StreamLimit = 6 * time.Minute
)

var (
	// ErrNoReply means the bot answered 200 with an empty body where WeCom
	// needed a reply.
	ErrNoReply = errors.New("wecomtest: bot answered with an empty body")
	// ErrStreamExpired means StreamLimit passed before a frame had finish:true.
	ErrStreamExpired = errors.New("wecomtest: stream not finished within WeCom's refresh limit")
	// ErrReplyTimeout means no answer came within the reply timeout, after
	// every retry.
	ErrReplyTimeout = errors.New("wecomtest: bot did not answer in time")
	// ErrReplySignature means the bot's reply was not signed with the
	// bot's token: WeCom drops such a reply.
	ErrReplySignature = errors.New("wecomtest: reply msgsignature does not match")
)

// StatusError is a non-200 answer from the bot.
type StatusError struct {
	Status int
	Body   string
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("wecomtest: bot answered HTTP %d: %s", e.Status, e.Body)
}

// Config says which bot endpoint to play WeCom for.
type Config struct {
	URL            string // the bot's AI-bot endpoint, e.g. http://127.0.0.1:8080/wecom/aibot
	Token          string
	EncodingAESKey string
	AIBotID        string

	// ResponseURLs, when set, gives every message without a ResponseURL one
	// from this server, as WeCom gives every message a response_url.
	ResponseURLs *ResponseURLServer

	Client         *http.Client     // default http.DefaultClient
	ReplyTimeout   time.Duration    // default ReplyTimeout
	VerifyTimeout  time.Duration    // default VerifyTimeout
	TimeoutRetries int              // WeCom uses TimeoutRetries; zero means no retry
	StreamLimit    time.Duration    // default StreamLimit
	Now            func() time.Time // default time.Now; signs timestamps and times streams
}

// Sim is one simulated WeCom AI bot. It is safe for concurrent use.
type Sim struct {
	cfg     Config
	crypter *crypter

	mu      sync.Mutex
	streams map[string]*streamState
}

// streamState is what WeCom remembers about a stream it is refreshing.
type streamState struct {
	msg    Message
	sentAt time.Time
	last   Frame
}

// New checks cfg and returns a simulator for it.
func New(cfg Config) (*Sim, error) {
	if _, err := url.ParseRequestURI(cfg.URL); err != nil {
		return nil, fmt.Errorf("wecomtest: endpoint URL %q: %w", cfg.URL, err)
	}
	if cfg.AIBotID == "" {
		return nil, errors.New("wecomtest: AIBotID is empty")
	}
	c, err := newCrypter(cfg.Token, cfg.EncodingAESKey, aiBotReceiveID)
	if err != nil {
		return nil, fmt.Errorf("wecomtest: %w", err)
	}
	if cfg.Client == nil {
		cfg.Client = http.DefaultClient
	}
	if cfg.ReplyTimeout <= 0 {
		cfg.ReplyTimeout = ReplyTimeout
	}
	if cfg.VerifyTimeout <= 0 {
		cfg.VerifyTimeout = VerifyTimeout
	}
	if cfg.StreamLimit <= 0 {
		cfg.StreamLimit = StreamLimit
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Sim{cfg: cfg, crypter: c, streams: map[string]*streamState{}}, nil
}

// VerifyURL performs WeCom's URL check: a signed GET with an encrypted
// echostr, which the bot must answer with the plaintext within VerifyTimeout.
func (s *Sim) VerifyURL(ctx context.Context, opts ...Option) error {
	o := collect(opts)
	n, err := rand.Int(rand.Reader, big.NewInt(1e18))
	if err != nil {
		return fmt.Errorf("wecomtest: echostr: %w", err)
	}
	plain := n.String()
	echo, err := s.crypter.encrypt([]byte(plain))
	if err != nil {
		return fmt.Errorf("wecomtest: %w", err)
	}
	q := s.sign(echo, o)
	q.echostr = echo
	ctx, cancel := context.WithTimeout(ctx, s.cfg.VerifyTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.endpoint(q), nil)
	if err != nil {
		return fmt.Errorf("wecomtest: URL check: %w", err)
	}
	status, body, err := s.do(req)
	if err != nil {
		return fmt.Errorf("wecomtest: URL check: %w", err)
	}
	if status != http.StatusOK {
		return &StatusError{Status: status, Body: string(body)}
	}
	if string(body) != plain {
		return fmt.Errorf("wecomtest: URL check answered %q, want the decrypted echostr %q", body, plain)
	}
	return nil
}

// Delivery is the outcome of one POSTed callback.
type Delivery struct {
	Attempts  int    // 1 + the timeout retries it took
	Body      []byte // the raw answer
	Plaintext []byte // the verified, decrypted reply; nil for an empty body
}

// Deliver encrypts and signs a callback JSON and POSTs it, as WeCom does,
// retrying up to Config.TimeoutRetries times when no answer comes within the
// reply timeout. A 200 answer with a body must be a correctly signed and
// encrypted envelope.
func (s *Sim) Deliver(ctx context.Context, callback []byte, opts ...Option) (*Delivery, error) {
	o := collect(opts)
	enc, err := s.crypter.encrypt(callback)
	if err != nil {
		return nil, fmt.Errorf("wecomtest: %w", err)
	}
	q := s.sign(enc, o)
	body := []byte(`{"encrypt":"` + enc + `"}`)
	if o.bodySize > len(body) {
		body = append(body, bytes.Repeat([]byte(" "), o.bodySize-len(body))...)
	}
	target := s.endpoint(q)

	d := &Delivery{}
	for {
		d.Attempts++
		status, answer, err := s.post(ctx, target, body)
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			if d.Attempts <= s.cfg.TimeoutRetries {
				continue // WeCom delivers the same callback again
			}
			return d, fmt.Errorf("%w: %d attempts of %s", ErrReplyTimeout, d.Attempts, s.cfg.ReplyTimeout)
		}
		if err != nil {
			return d, fmt.Errorf("wecomtest: deliver callback: %w", err)
		}
		d.Body = answer
		if status != http.StatusOK {
			return d, &StatusError{Status: status, Body: string(answer)}
		}
		if len(bytes.TrimSpace(answer)) == 0 {
			return d, nil
		}
		pt, err := s.crypter.openReply(answer)
		if err != nil {
			return d, fmt.Errorf("wecomtest: bot reply: %w", err)
		}
		d.Plaintext = pt
		return d, nil
	}
}

func (s *Sim) post(ctx context.Context, target string, body []byte) (int, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.ReplyTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	return s.do(req)
}

func (s *Sim) do(req *http.Request) (int, []byte, error) {
	resp, err := s.cfg.Client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return 0, nil, err
	}
	return resp.StatusCode, b, nil
}

// query is the signed part of a callback URL.
type query struct {
	signature, timestamp, nonce, echostr string
}

// sign makes the query for an encrypted text, applying tampering options.
func (s *Sim) sign(encrypted string, o options) query {
	ts := s.cfg.Now().Add(o.timestampOffset).Unix()
	q := query{timestamp: strconv.FormatInt(ts, 10), nonce: randomHex(5)}
	q.signature = s.crypter.signature(q.timestamp, q.nonce, encrypted)
	if o.forge {
		// A signature of the right shape made with a token the bot does not know.
		q.signature = randomHex(16) + q.signature[32:]
	}
	return q
}

func (s *Sim) endpoint(q query) string {
	u, _ := url.Parse(s.cfg.URL) // checked in New
	v := u.Query()
	v.Set("msg_signature", q.signature)
	v.Set("timestamp", q.timestamp)
	v.Set("nonce", q.nonce)
	if q.echostr != "" {
		v.Set("echostr", q.echostr)
	}
	u.RawQuery = v.Encode()
	return u.String()
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// Option changes how one delivery is made, for negative tests.
type Option func(*options)

type options struct {
	forge           bool
	timestampOffset time.Duration
	bodySize        int
	redeliveries    int
}

func collect(opts []Option) options {
	var o options
	for _, f := range opts {
		f(&o)
	}
	return o
}

// WithForgedSignature signs with a wrong signature, as an attacker without the
// token would.
func WithForgedSignature() Option { return func(o *options) { o.forge = true } }

// WithTimestampOffset shifts the signed timestamp from now (negative: stale).
// The signature stays valid, so only a timestamp check can reject it.
func WithTimestampOffset(d time.Duration) Option {
	return func(o *options) { o.timestampOffset = d }
}

// WithBodySize pads the POST body with trailing spaces to n bytes (still valid
// JSON, correctly signed), to test the body cap.
func WithBodySize(n int) Option { return func(o *options) { o.bodySize = n } }

// WithRedeliveries makes Send deliver the same message n more times after the
// first, as WeCom does when an answer is lost; each is encrypted and signed
// afresh, with the same msgid.
func WithRedeliveries(n int) Option { return func(o *options) { o.redeliveries = n } }
