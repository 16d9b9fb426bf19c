package wecomtest

import (
	"bufio"
	"encoding/base64"
	"encoding/hex"
	"os"
	"strings"
	"testing"
)

// vector is one row of bot/wecom/testdata/vectors.tsv, made with openssl and
// sha1sum (see its README): ground truth that neither the bot's crypto nor
// this fake's wrote.
type vector struct {
	name, token, aesKey, receiveID string
	random                         []byte
	timestamp, nonce               string
	msg                            []byte
	encrypt, signature             string
}

func loadVectors(t *testing.T) []vector {
	t.Helper()
	f, err := os.Open("../../bot/wecom/testdata/vectors.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var vs []vector
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if sc.Text() == "" || strings.HasPrefix(sc.Text(), "#") {
			continue
		}
		c := strings.Split(sc.Text(), "\t")
		if len(c) != 10 {
			t.Fatalf("vector line has %d columns, want 10: %q", len(c), sc.Text())
		}
		random, err := hex.DecodeString(c[4])
		if err != nil {
			t.Fatal(err)
		}
		msg, err := base64.StdEncoding.DecodeString(c[7])
		if err != nil {
			t.Fatal(err)
		}
		vs = append(vs, vector{c[0], c[1], c[2], c[3], random, c[5], c[6], msg, c[8], c[9]})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(vs) != 5 {
		t.Fatalf("loaded %d vectors, want 5", len(vs))
	}
	return vs
}

func TestCrypterMatchesOpenSSLVectors(t *testing.T) {
	for _, v := range loadVectors(t) {
		t.Run(v.name, func(t *testing.T) {
			c, err := newCrypter(v.token, v.aesKey, v.receiveID)
			if err != nil {
				t.Fatal(err)
			}
			if got := c.signature(v.timestamp, v.nonce, v.encrypt); got != v.signature {
				t.Errorf("signature = %s, want %s", got, v.signature)
			}
			enc, err := c.encryptWithRandom(v.random, v.msg)
			if err != nil {
				t.Fatal(err)
			}
			if enc != v.encrypt {
				t.Errorf("encryptWithRandom = %s, want the openssl vector %s", enc, v.encrypt)
			}
			got, err := c.decrypt(v.encrypt)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(v.msg) {
				t.Errorf("decrypt = %q, want %q", got, v.msg)
			}
		})
	}
}

func TestCrypterRefusesWhatWeComRefuses(t *testing.T) {
	vs := loadVectors(t)
	text, app := vs[0], vs[4]
	c, err := newCrypter(text.token, text.aesKey, text.receiveID)
	if err != nil {
		t.Fatal(err)
	}
	ct, _ := base64.StdEncoding.DecodeString(text.encrypt)
	flipped := append([]byte(nil), ct...)
	flipped[len(flipped)-1] ^= 0xff // the last block decrypts to garbage padding
	for _, tc := range []struct {
		name, encrypted, want string
	}{
		{"not base64", "%%%", "decrypt: base64: illegal base64 data at input byte 0"},
		{"a partial block", base64.StdEncoding.EncodeToString(ct[:48]), "decrypt: ciphertext is 48 bytes, want a non-zero multiple of 32"},
		{"empty", "", "decrypt: ciphertext is 0 bytes, want a non-zero multiple of 32"},
		{"bad padding", base64.StdEncoding.EncodeToString(flipped), "decrypt: bad PKCS#7 padding"},
		{"another receive id", app.encrypt, `decrypt: receive id is "wwcorp0123456789", want ""`},
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
		{"", "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8", "Token is empty"},
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
	c, err := newCrypter(v.token, v.aesKey, v.receiveID)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, body, want string
	}{
		{"string timestamp", `{"encrypt":"` + v.encrypt + `","msgsignature":"` + v.signature + `","timestamp":"` + v.timestamp + `","nonce":"` + v.nonce + `"}`, string(v.msg)},
		{"numeric timestamp", `{"encrypt":"` + v.encrypt + `","msgsignature":"` + v.signature + `","timestamp":` + v.timestamp + `,"nonce":"` + v.nonce + `"}`, string(v.msg)},
		{"wrong signature", `{"encrypt":"` + v.encrypt + `","msgsignature":"0` + v.signature[1:] + `","timestamp":"` + v.timestamp + `","nonce":"` + v.nonce + `"}`, ErrReplySignature.Error()},
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
