package schedule

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/wecodex/wecodex/bot"
)

// Trigger is one triggers.<name>: a signed POST /hooks/<name> starts Turn
// with the request's body after its prompt.
type Trigger struct {
	Name   string
	Secret []byte
	// Turn is what each accepted request starts; its ID is made from the
	// signature and the body is added to its Prompt.
	Turn Turn
	// MaxBody is how much of the body the prompt gets; the rest is cut
	// with a note. Zero means DefaultMaxBody.
	MaxBody int64
}

// DefaultMaxBody is triggers.<name>.max_body's default.
const DefaultMaxBody = 64 << 10

// Request limits: a request's timestamp must be this close to now, and a
// body larger than maxRequestBytes is refused unread (the signature covers
// the whole body, so it must be read whole).
const (
	MaxClockSkew    = 5 * time.Minute
	maxRequestBytes = 8 << 20
)

// The trigger request headers.
const (
	HeaderTimestamp = "X-Wecodex-Timestamp"
	HeaderSignature = "X-Wecodex-Signature"
)

// Replays remembers the signatures already accepted (*store.Schedules).
type Replays interface {
	// SeenSignature is true the first time name's signature is seen.
	SeenSignature(ctx context.Context, name, signature string) (bool, error)
}

// HookObserver counts trigger requests (metrics.Metrics implements it).
type HookObserver interface {
	TriggerRequest(name, result string)
}

// The results of a trigger request.
const (
	ResultStarted  = "started"
	ResultUnsigned = "unsigned" // a missing, stale or wrong timestamp or signature
	ResultReplayed = "replayed"
	ResultTooLarge = "too_large"
	ResultFailed   = "failed" // accepted, but its turn could not be queued
)

// HooksConfig is a Hooks' parts.
type HooksConfig struct {
	Triggers []Trigger
	Replays  Replays
	Starter  Starter
	Observer HookObserver // may be nil
	Auditor  Auditor      // may be nil
	Log      *slog.Logger
	Now      func() time.Time // nil: time.Now
}

// unauthorized is the one answer to a request that is not a trigger's
// signed one.
const unauthorized = "unauthorized: sign \"<timestamp>.<body>\" with HMAC-SHA256, timestamp within 5 minutes"

// Hooks serves POST /hooks/{name}: it accepts only a request whose
// X-Wecodex-Timestamp (unix seconds) is within MaxClockSkew of now and
// whose X-Wecodex-Signature is "sha256=" and the hex HMAC-SHA256 of
// "<timestamp>.<raw body>" under the trigger's secret; anything else gets
// 401 and runs nothing. A signature is accepted once.
type Hooks struct {
	cfg      HooksConfig
	triggers map[string]Trigger
}

// NewHooks returns the handler; mount it on "POST /hooks/{name}".
func NewHooks(cfg HooksConfig) *Hooks {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.Observer == nil {
		cfg.Observer = nopHookObserver{}
	}
	if cfg.Auditor == nil {
		cfg.Auditor = nopAuditor{}
	}
	h := &Hooks{cfg: cfg, triggers: map[string]Trigger{}}
	for _, t := range cfg.Triggers {
		if t.MaxBody <= 0 {
			t.MaxBody = DefaultMaxBody
		}
		h.triggers[t.Name] = t
	}
	return h
}

type nopHookObserver struct{}

func (nopHookObserver) TriggerRequest(string, string) {}

// Names lists the triggers served.
func (h *Hooks) Names() []string { return sortedNames(h.triggers) }

func (h *Hooks) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	t, ok := h.triggers[name]
	if !ok {
		// The answer an unsigned request to a trigger gets: a caller
		// without a secret cannot find out which names are triggers. It is
		// not counted: the name is the caller's, any number of them.
		http.Error(w, unauthorized, http.StatusUnauthorized)
		return
	}
	log := h.cfg.Log.With("trigger", name)
	result, status, msg := h.serve(r, t, log)
	h.cfg.Observer.TriggerRequest(name, result)
	if result != ResultStarted {
		log.Info("trigger request refused", "result", result)
	}
	http.Error(w, msg, status)
}

// serve checks and starts one request; it returns the result, the HTTP
// status and the text to answer.
func (h *Hooks) serve(r *http.Request, t Trigger, log *slog.Logger) (result string, status int, msg string) {
	body, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, maxRequestBytes))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return ResultTooLarge, http.StatusRequestEntityTooLarge, fmt.Sprintf("body larger than %d bytes", maxRequestBytes)
	case err != nil:
		return ResultUnsigned, http.StatusBadRequest, "cannot read the body"
	}
	ts := r.Header.Get(HeaderTimestamp)
	sig, ok := strings.CutPrefix(r.Header.Get(HeaderSignature), "sha256=")
	if !ok || !h.fresh(ts) || !validSignature(t.Secret, ts, body, sig) {
		// One answer for every failure: a caller without the secret
		// learns nothing about which part was wrong.
		return ResultUnsigned, http.StatusUnauthorized, unauthorized
	}
	sig = strings.ToLower(sig)
	turn := t.Turn
	turn.ID = "trigger:" + t.Name + ":" + sig[:32]
	turn.Source = "trigger " + t.Name
	// A signed request is audited whatever becomes of it; an unsigned one
	// is not: anyone can send those, and they would flush the trail.
	defer func() { h.audit(r.Context(), t.Name, turn, ts, result) }()
	first, err := h.cfg.Replays.SeenSignature(r.Context(), t.Name, sig)
	switch {
	case err != nil:
		log.Warn("trigger request not started: cannot record its signature", "err", err)
		return ResultFailed, http.StatusServiceUnavailable, "try again"
	case !first:
		return ResultReplayed, http.StatusUnauthorized, "unauthorized: this signature was used already"
	}
	turn.Prompt = TriggerPrompt(t.Turn.Prompt, body, t.MaxBody)
	if err := h.cfg.Starter.Start(r.Context(), turn); err != nil {
		log.Warn("trigger request accepted but its turn could not be queued", "err", err)
		return ResultFailed, http.StatusServiceUnavailable, "accepted, but the turn could not be queued; sign it again with a new timestamp to retry"
	}
	log.Info("trigger started a turn", "conv", turn.Conversation, "body_bytes", len(body))
	return ResultStarted, http.StatusAccepted, "started"
}

// audit records one signed request of trigger name; ts is its (fresh)
// X-Wecodex-Timestamp.
func (h *Hooks) audit(ctx context.Context, name string, turn Turn, ts, result string) {
	sec, _ := strconv.ParseInt(ts, 10, 64)
	h.cfg.Auditor.Audit(context.WithoutCancel(ctx), fireEvent(bot.AuditTrigger, name, turn, time.Unix(sec, 0), result))
}

// fresh reports whether ts (unix seconds) is within MaxClockSkew of now.
func (h *Hooks) fresh(ts string) bool {
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return false
	}
	d := h.cfg.Now().Sub(time.Unix(sec, 0))
	return d <= MaxClockSkew && d >= -MaxClockSkew
}

// Sign is the X-Wecodex-Signature value of body sent at ts.
func Sign(secret []byte, ts string, body []byte) string {
	return "sha256=" + hex.EncodeToString(mac(secret, ts, body))
}

func mac(secret []byte, ts string, body []byte) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(ts))
	m.Write([]byte{'.'})
	m.Write(body)
	return m.Sum(nil)
}

func validSignature(secret []byte, ts string, body []byte, sigHex string) bool {
	got, err := hex.DecodeString(sigHex)
	return err == nil && len(got) == sha256.Size && hmac.Equal(got, mac(secret, ts, body))
}

// TriggerPrompt is prompt followed by body as a fenced block, cut to max
// bytes (on a character boundary) with a note saying so.
func TriggerPrompt(prompt string, body []byte, max int64) string {
	text, cut := string(body), false
	if int64(len(text)) > max {
		text, cut = text[:max], true
		for !utf8.ValidString(text) && len(text) > 0 {
			text = text[:len(text)-1]
		}
	}
	fence := "```"
	for strings.Contains(text, fence) {
		fence += "`"
	}
	var b strings.Builder
	b.WriteString(strings.TrimSpace(prompt))
	b.WriteString("\n\n" + fence + "\n" + text)
	if !strings.HasSuffix(text, "\n") {
		b.WriteString("\n")
	}
	b.WriteString(fence)
	if cut {
		fmt.Fprintf(&b, "\n\n(The request body was %d bytes; only its first %d are shown above.)", len(body), len(text))
	}
	return b.String()
}
