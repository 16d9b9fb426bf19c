package app

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/bot/wecom"
)

// receiveTimeout bounds the work on one callback: WeCom waits 5 s, then
// delivers it again (a click: drops it); dedupe makes the retry safe.
const receiveTimeout = 4 * time.Second

// Intake is what the endpoint hands callbacks to; *bot.Engine implements it.
type Intake interface {
	Receive(ctx context.Context, m bot.Message) (bot.Receipt, error)
	// Allowed says whether intake takes m's sender: a stranger's file is
	// not fetched.
	Allowed(m bot.Message) bool
	Decider
}

// Handler is the app's callback endpoint (wecom.app.path) bound to in: the
// GET URL check, and POSTed messages and card clicks. Every request is
// checked (timestamp, body size, signature) before anything in it is
// trusted, and a rejected request changes nothing.
func (c *Channel) Handler(in Intake) http.Handler { return &handler{c: c, in: in} }

type handler struct {
	c  *Channel
	in Intake
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	wecom.Route(w, r, h.verifyURL, h.callback)
}

func (h *handler) verifyURL(w http.ResponseWriter, r *http.Request) {
	echo, err := h.c.crypter.CheckURLRequest(r, h.c.now())
	if err != nil {
		h.reject(w, r, "URL check", err)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write(echo)
}

// open does the checks in the safe order: query, timestamp, size,
// signature, decryption, parse.
func (h *handler) open(r *http.Request) (wecom.Query, Callback, error) {
	if r.ContentLength > wecom.MaxBodyBytes {
		return wecom.Query{}, Callback{}, fmt.Errorf("%w: Content-Length %d, limit %d", wecom.ErrBodyTooLarge, r.ContentLength, wecom.MaxBodyBytes)
	}
	q, err := wecom.ParseQuery(r.URL.Query())
	if err != nil {
		return q, Callback{}, err
	}
	if err := wecom.CheckTimestamp(q.Timestamp, h.c.now(), wecom.TimestampWindow); err != nil {
		return q, Callback{}, err
	}
	body, err := wecom.ReadBody(r.Body)
	if err != nil {
		return q, Callback{}, err
	}
	plain, err := openEnvelope(h.c.crypter, q, body)
	if err != nil {
		return q, Callback{}, err
	}
	cb, err := ParseCallback(plain, h.c.corpID, h.c.agentID)
	return q, cb, err
}

func (h *handler) callback(w http.ResponseWriter, r *http.Request) {
	q, cb, err := h.open(r)
	switch {
	case errors.Is(err, ErrUnsupported):
		h.c.log.Info("app callback of an unsupported msgtype", "msgtype", cb.MsgType, "msgid", cb.MsgID, "user", cb.User)
		w.WriteHeader(http.StatusOK)
		return
	case err != nil:
		h.reject(w, r, "callback", err)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), receiveTimeout)
	defer cancel()
	switch cb.Kind {
	case KindMessage:
		m, ref, hasFile := messageOf(cb)
		if hasFile && h.in.Allowed(m) {
			// Fetched off the callback (see receiveWithFile); a
			// stranger's message goes to intake as it is, which refuses it.
			if _, err := h.c.receiveWithFile(ctx, h.in, m, ref); err != nil {
				h.fail(w, "receive message with a file", err, "msgid", cb.MsgID, "user", cb.User)
				return
			}
			break
		}
		if _, err := h.in.Receive(ctx, m); err != nil {
			h.fail(w, "receive message", err, "msgid", cb.MsgID, "user", cb.User)
			return
		}
	case KindClick:
		h.click(ctx, w, q, cb)
		return
	}
	w.WriteHeader(http.StatusOK)
}

// textStopping replaces a clicked Stop button until the card is updated
// to how the turn ended; the grey label cannot be clicked again.
const textStopping = "Stopping…"

// click answers a card's button: stop the turn whose card it is (its
// button turns grey), or decide an approval and replace its card with the
// outcome. Both answers are passive replies.
func (h *handler) click(ctx context.Context, w http.ResponseWriter, q wecom.Query, cb Callback) {
	if stream, ok := strings.CutPrefix(cb.EventKey, keyStop); ok {
		stopped, err := h.stop(ctx, cb, stream)
		switch {
		case err != nil:
			h.fail(w, "stop from a card click", err, "user", cb.User)
		case !stopped:
			w.WriteHeader(http.StatusOK)
		default:
			plain, err := replaceButton(h.c.corpID, cb.User, h.c.now().Unix(), textStopping)
			h.answer(w, q, cb, plain, err)
		}
		return
	}
	card, ok, err := decideClick(ctx, h.in, cb)
	switch {
	case err != nil:
		h.fail(w, "decide from a card click", err, "user", cb.User)
	case !ok:
		w.WriteHeader(http.StatusOK) // a done button, or a key not ours
	default:
		plain, err := replaceCard(h.c.corpID, cb.User, h.c.now().Unix(), card)
		h.answer(w, q, cb, plain, err)
	}
}

// answer seals the passive reply plain (built with err) and writes it.
func (h *handler) answer(w http.ResponseWriter, q wecom.Query, cb Callback, plain []byte, err error) {
	var body []byte
	if err == nil {
		body, err = seal(h.c.crypter, plain, q.Timestamp, q.Nonce)
	}
	if err != nil {
		h.fail(w, "answer a card click", err, "user", cb.User)
		return
	}
	w.Header().Set("Content-Type", "application/xml; charset=utf-8")
	_, _ = w.Write(body)
}

// stop sends /stop for the user while the card's turn runs and says
// whether it did; a click on the card of a turn that ended stops nothing.
// Every click of one card is one message to intake, so repeats are deduped.
func (h *handler) stop(ctx context.Context, cb Callback, stream string) (bool, error) {
	open, err := h.c.store.CardOpen(ctx, stream)
	if err != nil || !open {
		return false, err
	}
	_, err = h.in.Receive(ctx, bot.Message{ID: "stop-" + stream, Conversation: wecom.AppChat(cb.User),
		User: cb.User, Text: "/stop", Channel: Name})
	return err == nil, err
}

// reject answers a request that failed a check. The log line names the
// check; it carries no query value, header or body.
func (h *handler) reject(w http.ResponseWriter, r *http.Request, what string, err error) {
	status := wecom.HTTPStatus(err)
	h.c.log.Warn("app "+what+" rejected", "status", status, "remote", r.RemoteAddr, "err", err)
	http.Error(w, http.StatusText(status), status)
}

// fail answers 500 for our own failure: WeCom retries a message, and
// dedupe makes the retry safe.
func (h *handler) fail(w http.ResponseWriter, what string, err error, attrs ...any) {
	h.c.log.Error("app "+what, append(attrs, "err", err)...)
	http.Error(w, http.StatusText(http.StatusInternalServerError), http.StatusInternalServerError)
}
