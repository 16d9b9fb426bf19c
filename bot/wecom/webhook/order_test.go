package webhook

import (
	"context"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/bot/wecom"
)

// countingBlock is the webhook's own AES block, counting each block it
// decrypts: decryption becomes observable without a hook in the handler.
type countingBlock struct {
	cipher.Block
	decrypted *atomic.Int64
}

func (b countingBlock) Decrypt(dst, src []byte) {
	b.decrypted.Add(1)
	b.Block.Decrypt(dst, src)
}

// refusingEngine fails the test if a rejected request reaches it.
type refusingEngine struct{ t *testing.T }

func (e refusingEngine) Receive(context.Context, bot.Message) (Frame, error) {
	e.t.Error("a rejected callback reached the engine")
	return Frame{}, nil
}

func (e refusingEngine) Allowed(bot.Message) bool { return true }

func (e refusingEngine) Frame(context.Context, string, Asker) (Frame, bool, error) {
	e.t.Error("a rejected refresh reached the engine")
	return Frame{}, false, nil
}

// Bad signatures are rejected before any decryption: a forged signature over
// garbage ciphertext is answered 401 (not the 400 of a failed decryption)
// and no AES block is decrypted. The signed control shows the counter sees
// decryption when it happens.
func TestSignatureIsVerifiedBeforeDecryption(t *testing.T) {
	const token = "orderToken"
	h, err := NewHandler(HandlerOptions{
		Token: token, EncodingAESKey: "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8", Streams: refusingEngine{t},
	})
	if err != nil {
		t.Fatal(err)
	}
	var decrypted atomic.Int64
	h.crypter = h.crypter.WrapBlock(func(b cipher.Block) cipher.Block { return countingBlock{Block: b, decrypted: &decrypted} })

	garbage := make([]byte, 4*wecom.PadBlockSize) // whole blocks: decryption would run
	if _, err := rand.Read(garbage); err != nil {
		t.Fatal(err)
	}
	enc := base64.StdEncoding.EncodeToString(garbage)
	ts, nonce := strconv.FormatInt(time.Now().Unix(), 10), "n0nce"
	forged := strings.Repeat("0", 40)
	signed := h.crypter.Signature(ts, nonce, enc)

	for _, tc := range []struct {
		name      string
		req       func() *http.Request
		status    int
		decrypted bool
	}{
		{"forged callback", func() *http.Request { return callbackRequest(forged, ts, nonce, enc) }, http.StatusUnauthorized, false},
		{"forged URL check", func() *http.Request { return urlCheckRequest(forged, ts, nonce, enc) }, http.StatusUnauthorized, false},
		{"signed garbage callback", func() *http.Request { return callbackRequest(signed, ts, nonce, enc) }, http.StatusBadRequest, true},
		{"signed garbage URL check", func() *http.Request { return urlCheckRequest(signed, ts, nonce, enc) }, http.StatusBadRequest, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			decrypted.Store(0)
			w := httptest.NewRecorder()
			h.ServeHTTP(w, tc.req())
			if w.Code != tc.status {
				t.Errorf("status %d (%q), want %d", w.Code, w.Body.String(), tc.status)
			}
			if n := decrypted.Load(); (n > 0) != tc.decrypted {
				t.Errorf("%d AES blocks decrypted; want decryption %v", n, tc.decrypted)
			}
		})
	}
}

func callbackRequest(sig, ts, nonce, enc string) *http.Request {
	q := wecom.Query{Signature: sig, Timestamp: ts, Nonce: nonce}.Values()
	r := httptest.NewRequest(http.MethodPost, "/wecom/aibot?"+q.Encode(), strings.NewReader(`{"encrypt":"`+enc+`"}`))
	r.Header.Set("Content-Type", "application/json")
	return r
}

func urlCheckRequest(sig, ts, nonce, enc string) *http.Request {
	q := wecom.Query{Signature: sig, Timestamp: ts, Nonce: nonce, EchoStr: enc}.Values()
	return httptest.NewRequest(http.MethodGet, "/wecom/aibot?"+url.Values(q).Encode(), nil)
}

func (e refusingEngine) Hold(context.Context, bot.Message, string) (Frame, bool, error) {
	e.t.Error("a rejected request reached the engine")
	return Frame{}, false, nil
}

func (e refusingEngine) Settle(context.Context, bot.Message, string) error {
	e.t.Error("a rejected request reached the engine")
	return nil
}
