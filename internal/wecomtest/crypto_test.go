package wecomtest

import (
	"encoding/base64"
	"os"
	"strings"
	"testing"
)

func loadVectors(t testing.TB) []Vector {
	t.Helper()
	return readVectorFile(t, "../../bot/wecom/testdata/vectors.tsv", 5)
}

// readVectorFile reads the n openssl vectors of path.
func readVectorFile(t testing.TB, path string, n int) []Vector {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	vs, err := ReadVectors(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != n {
		t.Fatalf("loaded %d vectors from %s, want %d", len(vs), path, n)
	}
	return vs
}

// Both sets: the AI bot's (bot/wecom/testdata) and the self-built app's
// (testdata/app-vectors.tsv, the corp id as receive id).
func TestCrypterMatchesOpenSSLVectors(t *testing.T) {
	for _, v := range append(loadVectors(t), loadAppVectors(t)...) {
		t.Run(v.Name, func(t *testing.T) {
			c, err := newCrypter(v.Token, v.EncodingAESKey, v.ReceiveID)
			if err != nil {
				t.Fatal(err)
			}
			if got := c.signature(v.Timestamp, v.Nonce, v.Encrypt); got != v.Signature {
				t.Errorf("signature = %s, want %s", got, v.Signature)
			}
			enc, err := c.encryptWithRandom(v.Random, v.Message)
			if err != nil {
				t.Fatal(err)
			}
			if enc != v.Encrypt {
				t.Errorf("encryptWithRandom = %s, want the openssl vector %s", enc, v.Encrypt)
			}
			got, err := c.decrypt(v.Encrypt)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(v.Message) {
				t.Errorf("decrypt = %q, want %q", got, v.Message)
			}
		})
	}
}

func TestCrypterRefusesWhatWeComRefuses(t *testing.T) {
	vs := loadVectors(t)
	text, app := vs[0], vs[4]
	c, err := newCrypter(text.Token, text.EncodingAESKey, text.ReceiveID)
	if err != nil {
		t.Fatal(err)
	}
	ct, _ := base64.StdEncoding.DecodeString(text.Encrypt)
	flipped := append([]byte(nil), ct...)
	flipped[len(flipped)-1] ^= 0xff // the last block decrypts to garbage padding
	for _, tc := range []struct {
		name, encrypted, want string
	}{
		{"not base64", "%%%", "decrypt: base64: illegal base64 data at input byte 0"},
		{"a partial block", base64.StdEncoding.EncodeToString(ct[:48]), "decrypt: ciphertext is 48 bytes, want a non-zero multiple of 32"},
		{"empty", "", "decrypt: ciphertext is 0 bytes, want a non-zero multiple of 32"},
		{"bad padding", base64.StdEncoding.EncodeToString(flipped), "decrypt: bad PKCS#7 padding"},
		{"another receive id", app.Encrypt, `decrypt: receive id is "wwcorp0123456789", want ""`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := c.decrypt(tc.encrypted); err == nil || err.Error() != tc.want {
				t.Fatalf("decrypt = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestNewCrypterNamesTheBadSetting(t *testing.T) {
	for _, tc := range []struct{ token, key, want string }{
		{"", "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8", "the token is empty"},
		{"t", "short", "EncodingAESKey has 5 characters, want 43"},
		{"t", strings.Repeat("*", 43), "EncodingAESKey is not base64: illegal base64 data at input byte 0"},
	} {
		if _, err := newCrypter(tc.token, tc.key, ""); err == nil || err.Error() != tc.want {
			t.Errorf("newCrypter(%q, %q) = %v, want %q", tc.token, tc.key, err, tc.want)
		}
	}
}

func TestOpenReplyChecksTheSignatureFirst(t *testing.T) {
	v := loadVectors(t)[3] // aibot-stream-reply
	c, err := newCrypter(v.Token, v.EncodingAESKey, v.ReceiveID)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, body, want string
	}{
		{"string timestamp", `{"encrypt":"` + v.Encrypt + `","msgsignature":"` + v.Signature + `","timestamp":"` + v.Timestamp + `","nonce":"` + v.Nonce + `"}`, string(v.Message)},
		{"numeric timestamp", `{"encrypt":"` + v.Encrypt + `","msgsignature":"` + v.Signature + `","timestamp":` + v.Timestamp + `,"nonce":"` + v.Nonce + `"}`, string(v.Message)},
		{"wrong signature", `{"encrypt":"` + v.Encrypt + `","msgsignature":"0` + v.Signature[1:] + `","timestamp":"` + v.Timestamp + `","nonce":"` + v.Nonce + `"}`, ErrReplySignature.Error()},
		{"no encrypt", `{"msgsignature":"x","timestamp":"1","nonce":"n"}`, "reply has no encrypt field"},
		{"bad timestamp", `{"encrypt":"x","msgsignature":"x","timestamp":true,"nonce":"n"}`, "timestamp true is neither a string nor an integer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pt, err := c.openReply([]byte(tc.body))
			got := string(pt)
			if err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Fatalf("openReply = %q, want %q", got, tc.want)
			}
		})
	}
}

// The fake reads whatever a bot answers: decrypt must refuse garbage with an
// error, never panic, and what it opens must encrypt back to itself.
func FuzzDecrypt(f *testing.F) {
	vs := loadVectors(f)
	for _, v := range vs {
		f.Add(v.Encrypt)
	}
	f.Add("")
	f.Add(base64.StdEncoding.EncodeToString(make([]byte, 64)))
	c, err := newCrypter(vs[0].Token, vs[0].EncodingAESKey, aiBotReceiveID)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, enc string) {
		msg, err := c.decrypt(enc)
		if err != nil {
			return
		}
		again, err := c.encrypt(msg)
		if err != nil {
			t.Fatal(err)
		}
		if back, err := c.decrypt(again); err != nil || string(back) != string(msg) {
			t.Fatalf("round trip of %q gave %q, %v", msg, back, err)
		}
	})
}
