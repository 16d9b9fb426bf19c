package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/bot/wecom"
)

// Streams is what the endpoint needs behind it; Channel.Streams binds the
// channel to the engine's intake.
type Streams interface {
	// Receive handles a user message and returns its stream's first frame.
	Receive(ctx context.Context, m bot.Message) (Frame, error)
	// Frame returns a stream's newest frame from the shared store; ok is
	// false for a stream nobody knows and for one another conversation or
	// user owns.
	Frame(ctx context.Context, streamID string, from Asker) (f Frame, ok bool, err error)
	// Hold claims a message's reply stream before the message is received,
	// showing text; held is false when another delivery holds it (f is then
	// its newest frame). See receiveMedia.
	Hold(ctx context.Context, m bot.Message, text string) (f Frame, held bool, err error)
	// Settle finishes a held stream whose message could not be received.
	Settle(ctx context.Context, m bot.Message, text string) error
	// Allowed says whether m's sender may use the bot (Intake.Allowed).
	Allowed(m bot.Message) bool
}

// receiveTimeout bounds the engine's work on one callback. WeCom waits 5 s
// and then delivers the callback again; answering an error before that is
// better than answering nothing, and dedupe makes the retry safe.
const receiveTimeout = 4 * time.Second

// What the webhook itself says.
const (
	textUnknownStream = "This reply is no longer available. Send the message again if you still need an answer."
	textUnsupported   = "Sorry, I cannot read this kind of message. Send text, voice, a picture, a file or a video."
	textWelcome       = "Hi! Send me a coding task and I will work on it with Codex. /help lists the commands."
)

// HandlerOptions configure an Handler.
type HandlerOptions struct {
	// Token and EncodingAESKey are wecom.aibot.token and encoding_aes_key.
	Token, EncodingAESKey string
	// Streams turns messages into streams and answers refreshes:
	// Channel.Streams of the engine the channel is registered on.
	Streams Streams
	// Logger receives one line per rejected callback; nil discards.
	Logger *slog.Logger
	// Now is the clock timestamps are checked against; nil means time.Now.
	Now func() time.Time
	// Media fetches the files of messages (wecom.media.*); its Key is set
	// to the bot's EncodingAESKey, which encrypts them.
	Media wecom.Fetcher
	// FetchClaim is how long a process that died while fetching a
	// message's files keeps it from the others (see fetchlog.go); zero
	// means DefaultFetchClaim.
	FetchClaim time.Duration
}

// Handler is the AI bot's webhook endpoint (wecom.aibot.path): it
// answers WeCom's GET URL check, and turns each POSTed callback into an
// engine call answered with an encrypted stream frame. Every request is
// checked (timestamp, body size, signature) before anything in it is trusted,
// and a rejected request changes nothing.
type Handler struct {
	crypter *wecom.Crypter
	streams Streams
	log     *slog.Logger
	now     func() time.Time

	fetcher    wecom.Fetcher
	streamKey  []byte          // derives the stream of a message with files
	life       context.Context // ends with Close: the background receives
	stop       context.CancelFunc
	background sync.WaitGroup

	// fetchLog records messages with files (nil: Streams does not).
	fetchLog FetchLog
	claimer  string        // this process, in its fetch claims
	claim    time.Duration // FetchClaim
}

// NewHandler checks the credentials and returns the endpoint handler.
func NewHandler(o HandlerOptions) (*Handler, error) {
	if o.Streams == nil {
		return nil, errors.New("wecom aibot webhook: no streams")
	}
	c, err := wecom.NewCrypter(o.Token, o.EncodingAESKey, wecom.AIBotReceiveID)
	if err != nil {
		return nil, fmt.Errorf("wecom aibot webhook: %w", err)
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	key, err := wecom.DecodeAESKey(o.EncodingAESKey)
	if err != nil {
		return nil, fmt.Errorf("wecom aibot webhook: %w", err)
	}
	o.Media.Key = key
	if o.FetchClaim <= 0 {
		o.FetchClaim = DefaultFetchClaim
	}
	life, stop := context.WithCancel(context.Background())
	h := &Handler{crypter: c, streams: o.Streams, log: o.Logger, now: o.Now,
		fetcher: o.Media, streamKey: key, life: life, stop: stop, claimer: newClaimer(), claim: o.FetchClaim}
	if fl, ok := o.Streams.(FetchLog); ok {
		h.fetchLog = fl
		h.background.Add(1)
		go func() {
			defer h.background.Done()
			h.takeOverFetches()
		}()
	}
	return h, nil
}

// ServeHTTP answers GET URL checks and POST callbacks.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	wecom.Route(w, r, h.verifyURL, h.callback)
}

func (h *Handler) verifyURL(w http.ResponseWriter, r *http.Request) {
	echo, err := h.crypter.CheckURLRequest(r, h.now())
	if err != nil {
		h.reject(w, r, "URL check", err)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write(echo)
}

func (h *Handler) callback(w http.ResponseWriter, r *http.Request) {
	if r.ContentLength > wecom.MaxBodyBytes {
		// Refused before reading a byte of it.
		h.reject(w, r, "callback", fmt.Errorf("%w: Content-Length %d, limit %d", wecom.ErrBodyTooLarge, r.ContentLength, wecom.MaxBodyBytes))
		return
	}
	q, plaintext, err := h.crypter.OpenRequest(r, h.now())
	if err != nil {
		h.reject(w, r, "callback", err)
		return
	}
	cb, err := wecom.ParseCallback(plaintext)
	switch {
	case errors.Is(err, wecom.ErrUnsupported):
		h.log.Info("aibot callback of an unsupported msgtype", "msgtype", cb.MsgType, "msgid", cb.MsgID, "user", cb.UserID)
		h.reply(w, q, Frame{StreamID: wecom.NewNonce() + wecom.NewNonce(), Content: textUnsupported, Finish: true})
		return
	case err != nil:
		h.reject(w, r, "callback", err)
		return
	}

	// A stranger's files are not fetched: the message goes to intake as it
	// is, which refuses it.
	if cb.Kind == wecom.KindMessage && len(cb.Media) > 0 && h.streams.Allowed(messageOf(cb)) {
		h.receiveMedia(w, r, q, cb)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), receiveTimeout)
	defer cancel()
	switch cb.Kind {
	case wecom.KindMessage:
		f, err := h.streams.Receive(ctx, messageOf(cb))
		if err != nil {
			h.fail(w, "receive message", err, "msgid", cb.MsgID, "user", cb.UserID)
			return
		}
		h.reply(w, q, f)
	case wecom.KindStreamRefresh:
		f, ok, err := h.streams.Frame(ctx, cb.StreamID, askerOf(cb))
		if err != nil {
			h.fail(w, "load stream frame", err, "stream", cb.StreamID)
			return
		}
		if !ok {
			// Unknown, expired or someone else's: the same answer, so a
			// refresh cannot tell another conversation's stream exists.
			f = Frame{StreamID: cb.StreamID, Content: textUnknownStream, Finish: true}
		}
		h.reply(w, q, f)
	case wecom.KindEvent:
		h.event(w, q, cb)
	}
}

// messageOf is the engine's view of a user message. The conversation is
// of its chat type's kind (Callback.Conversation), so a group whose chat
// id equals a user id is another conversation. ParseCallback already
// removed the bot's @mention from a group message.
func messageOf(cb wecom.Callback) bot.Message {
	m := bot.Message{
		ID: cb.MsgID, User: cb.UserID, Corp: cb.CorpID, Text: cb.Text,
		Conversation: cb.Conversation(), Channel: Name, Reply: bot.ReplyTo{URL: cb.ResponseURL},
	}
	m.Text, m.Quote = wecom.Prompt(cb.Text, cb.Quote, len(cb.Media) > 0)
	return m
}

// askerOf is who a refresh callback comes from, keyed like messageOf.
func askerOf(cb wecom.Callback) Asker {
	return Asker{Conversation: cb.Conversation(), User: cb.UserID}
}

// event answers enter_chat with a greeting and every other event with an
// empty 200, which WeCom takes as "no reply".
func (h *Handler) event(w http.ResponseWriter, q wecom.Query, cb wecom.Callback) {
	if cb.Event.Type != "enter_chat" {
		w.WriteHeader(http.StatusOK)
		return
	}
	pt, err := json.Marshal(wecom.Reply{MsgType: "text", Text: &wecom.TextBody{Content: textWelcome}})
	if err == nil {
		var body []byte
		if body, err = h.crypter.Seal(pt, q.Timestamp, q.Nonce); err == nil {
			writeJSON(w, body)
			return
		}
	}
	h.fail(w, "seal enter_chat reply", err)
}

// reply writes f as an encrypted stream reply signed with the callback's own
// timestamp and nonce.
func (h *Handler) reply(w http.ResponseWriter, q wecom.Query, f Frame) {
	body, err := h.crypter.SealStream(wecom.StreamFrame{ID: f.StreamID, Finish: f.Finish, Content: f.Content, MsgItem: f.Items}, q.Timestamp, q.Nonce)
	if err != nil {
		h.fail(w, "seal stream reply", err, "stream", f.StreamID)
		return
	}
	writeJSON(w, body)
}

func writeJSON(w http.ResponseWriter, body []byte) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	_, _ = w.Write(body)
}

// reject answers a request that failed a check with the status HTTPStatus
// maps it to. The log line names the check that failed; it carries no query
// value, header or body, so no secret or message reaches the log.
func (h *Handler) reject(w http.ResponseWriter, r *http.Request, what string, err error) {
	status := wecom.HTTPStatus(err)
	h.log.Warn("aibot "+what+" rejected", "status", status, "remote", r.RemoteAddr, "err", err)
	http.Error(w, http.StatusText(status), status)
}

// fail answers 500 for our own failure (Redis down, say): WeCom retries, and
// dedupe makes the retry safe.
func (h *Handler) fail(w http.ResponseWriter, what string, err error, attrs ...any) {
	h.log.Error("aibot "+what, append(attrs, "err", err)...)
	http.Error(w, http.StatusText(http.StatusInternalServerError), http.StatusInternalServerError)
}
