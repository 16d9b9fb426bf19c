package wecomtest

import (
	"bufio"
	"encoding/base64"
	"encoding/hex"
	"os"
	"strings"
	"testing"
)

// appVector is one line of testdata/app-vectors.tsv (make-app-vectors.sh:
// openssl, sha1sum, no Go).
type appVector struct {
	name, token, aesKey, corpID string
	random                      []byte
	timestamp, nonce            string
	message                     []byte
	encrypt, signature          string
}

func loadAppVectors(t *testing.T) []appVector {
	t.Helper()
	f, err := os.Open("testdata/app-vectors.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []appVector
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "#") {
			continue
		}
		c := strings.Split(sc.Text(), "\t")
		if len(c) != 10 {
			t.Fatalf("vector line has %d columns", len(c))
		}
		random, err1 := hex.DecodeString(c[4])
		msg, err2 := base64.StdEncoding.DecodeString(c[7])
		if err1 != nil || err2 != nil {
			t.Fatalf("vector %s: %v %v", c[0], err1, err2)
		}
		out = append(out, appVector{c[0], c[1], c[2], c[3], random, c[5], c[6], msg, c[8], c[9]})
	}
	if len(out) != 4 {
		t.Fatalf("%d vectors, want 4", len(out))
	}
	return out
}

// The fake's crypto matches openssl's byte for byte, both ways.
func TestAppCryptoMatchesOpenSSLVectors(t *testing.T) {
	for _, v := range loadAppVectors(t) {
		t.Run(v.name, func(t *testing.T) {
			c, err := newAppCrypto(v.token, v.aesKey, v.corpID)
			if err != nil {
				t.Fatal(err)
			}
			enc, err := c.encrypt(v.random, v.message)
			if err != nil || enc != v.encrypt {
				t.Fatalf("encrypt = %q (%v), want %q", enc, err, v.encrypt)
			}
			if sig := c.sign(v.timestamp, v.nonce, v.encrypt); sig != v.signature {
				t.Fatalf("sign = %s, want %s", sig, v.signature)
			}
			msg, err := c.decrypt(v.encrypt)
			if err != nil || string(msg) != string(v.message) {
				t.Fatalf("decrypt = %q (%v), want %q", msg, err, v.message)
			}
			other, _ := newAppCrypto(v.token, v.aesKey, "wwsomeoneelse")
			if _, err := other.decrypt(v.encrypt); err == nil || !strings.Contains(err.Error(), `receive id "ww0123456789abcdef"`) {
				t.Fatalf("another corp's decrypt: %v, want a receive id error", err)
			}
		})
	}
}

// A sealed callback is WeCom's envelope, CDATA and all, and opens back to
// the plaintext with the corp id as receive id.
func TestAppSealEnvelope(t *testing.T) {
	v := loadAppVectors(t)[0]
	a, err := NewAppCallbacks(AppConfig{CorpID: v.corpID, AgentID: 1000002, Token: v.token, EncodingAESKey: v.aesKey})
	if err != nil {
		t.Fatal(err)
	}
	body, q, err := a.Seal(v.message)
	if err != nil {
		t.Fatal(err)
	}
	s := string(body)
	const head = "<xml><ToUserName><![CDATA[ww0123456789abcdef]]></ToUserName><AgentID><![CDATA[1000002]]></AgentID><Encrypt><![CDATA["
	if !strings.HasPrefix(s, head) || !strings.HasSuffix(s, "]]></Encrypt></xml>") {
		t.Fatalf("envelope %s", s)
	}
	enc := strings.TrimSuffix(strings.TrimPrefix(s, head), "]]></Encrypt></xml>")
	if q.Get("msg_signature") != a.crypto.sign(q.Get("timestamp"), q.Get("nonce"), enc) {
		t.Fatal("signature does not cover the Encrypt")
	}
	if got, err := a.crypto.decrypt(enc); err != nil || string(got) != string(v.message) {
		t.Fatalf("decrypt = %q %v", got, err)
	}
}
