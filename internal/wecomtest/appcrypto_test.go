package wecomtest

import (
	"os"
	"strings"
	"testing"
)

// loadAppVectors reads testdata/app-vectors.tsv (make-app-vectors.sh:
// openssl, sha1sum, no Go): self-built app callbacks, the corp id as
// receive id.
func loadAppVectors(t *testing.T) []Vector {
	t.Helper()
	f, err := os.Open("testdata/app-vectors.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	vs, err := ReadVectors(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 4 {
		t.Fatalf("%d app vectors, want 4", len(vs))
	}
	return vs
}

// The fake's crypto, given the corp id as receive id, matches openssl's
// app callbacks byte for byte, both ways.
func TestAppCryptoMatchesOpenSSLVectors(t *testing.T) {
	for _, v := range loadAppVectors(t) {
		t.Run(v.Name, func(t *testing.T) {
			c, err := newCrypter(v.Token, v.EncodingAESKey, v.ReceiveID)
			if err != nil {
				t.Fatal(err)
			}
			enc, err := c.encryptWithRandom(v.Random, v.Message)
			if err != nil || enc != v.Encrypt {
				t.Fatalf("encrypt = %q (%v), want %q", enc, err, v.Encrypt)
			}
			if sig := c.signature(v.Timestamp, v.Nonce, v.Encrypt); sig != v.Signature {
				t.Fatalf("signature = %s, want %s", sig, v.Signature)
			}
			msg, err := c.decrypt(v.Encrypt)
			if err != nil || string(msg) != string(v.Message) {
				t.Fatalf("decrypt = %q (%v), want %q", msg, err, v.Message)
			}
			other, _ := newCrypter(v.Token, v.EncodingAESKey, "wwsomeoneelse")
			if _, err := other.decrypt(v.Encrypt); err == nil || !strings.Contains(err.Error(), `receive id is "ww0123456789abcdef"`) {
				t.Fatalf("another corp's decrypt: %v, want a receive id error", err)
			}
		})
	}
}

// A sealed callback is WeCom's envelope, CDATA and all, and opens back to
// the plaintext with the corp id as receive id.
func TestAppSealEnvelope(t *testing.T) {
	v := loadAppVectors(t)[0]
	a, err := NewAppCallbacks(AppConfig{CorpID: v.ReceiveID, AgentID: 1000002, Token: v.Token, EncodingAESKey: v.EncodingAESKey})
	if err != nil {
		t.Fatal(err)
	}
	body, q, err := a.Seal(v.Message)
	if err != nil {
		t.Fatal(err)
	}
	s := string(body)
	const head = "<xml><ToUserName><![CDATA[ww0123456789abcdef]]></ToUserName><AgentID><![CDATA[1000002]]></AgentID><Encrypt><![CDATA["
	if !strings.HasPrefix(s, head) || !strings.HasSuffix(s, "]]></Encrypt></xml>") {
		t.Fatalf("envelope %s", s)
	}
	enc := strings.TrimSuffix(strings.TrimPrefix(s, head), "]]></Encrypt></xml>")
	if q.Get("msg_signature") != a.crypto.signature(q.Get("timestamp"), q.Get("nonce"), enc) {
		t.Fatal("signature does not cover the Encrypt")
	}
	if got, err := a.crypto.decrypt(enc); err != nil || string(got) != string(v.Message) {
		t.Fatalf("decrypt = %q %v", got, err)
	}
}
