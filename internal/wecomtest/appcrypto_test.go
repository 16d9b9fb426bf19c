package wecomtest

import (
	"strings"
	"testing"
)

// loadAppVectors reads testdata/app-vectors.tsv (make-app-vectors.sh:
// openssl, sha1sum, no Go): self-built app callbacks, the corp id as
// receive id. TestCrypterMatchesOpenSSLVectors checks the crypter on them.
func loadAppVectors(t testing.TB) []Vector {
	t.Helper()
	return readVectorFile(t, "testdata/app-vectors.tsv", 4)
}

// An app ciphertext opens only for its own corp.
func TestAppCiphertextNamesItsCorp(t *testing.T) {
	v := loadAppVectors(t)[0]
	other, err := newCrypter(v.Token, v.EncodingAESKey, "wwsomeoneelse")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.decrypt(v.Encrypt); err == nil || !strings.Contains(err.Error(), `receive id is "ww0123456789abcdef"`) {
		t.Fatalf("another corp's decrypt: %v, want a receive id error", err)
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
