package wecom

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"encoding/base64"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/wecodex/wecodex/internal/wecomtest"
)

// loadVectors reads the openssl vectors with the fake's reader, which
// shares nothing else with this package.
func loadVectors(t testing.TB) []wecomtest.Vector {
	t.Helper()
	f, err := os.Open("testdata/vectors.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	vs, err := wecomtest.ReadVectors(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 5 {
		t.Fatalf("loaded %d vectors, want 5", len(vs))
	}
	return vs
}

func TestVectors(t *testing.T) {
	for _, v := range loadVectors(t) {
		t.Run(v.Name, func(t *testing.T) {
			c, err := NewCrypter(v.Token, v.EncodingAESKey, v.ReceiveID)
			if err != nil {
				t.Fatal(err)
			}
			if got := c.Signature(v.Timestamp, v.Nonce, v.Encrypt); got != v.Signature {
				t.Errorf("Signature = %s, want %s", got, v.Signature)
			}
			if err := c.Verify(v.Signature, v.Timestamp, v.Nonce, v.Encrypt); err != nil {
				t.Errorf("Verify: %v", err)
			}
			got, err := c.Decrypt(v.Encrypt)
			if err != nil {
				t.Fatalf("Decrypt: %v", err)
			}
			if !bytes.Equal(got, v.Message) {
				t.Errorf("Decrypt = %q, want %q", got, v.Message)
			}
			enc, err := c.EncryptWithRandom(v.Random, v.Message)
			if err != nil {
				t.Fatal(err)
			}
			if enc != v.Encrypt {
				t.Errorf("EncryptWithRandom = %s, want the openssl vector %s", enc, v.Encrypt)
			}
		})
	}
}

func TestFullPadVectorIsTwoBlocks(t *testing.T) {
	for _, v := range loadVectors(t) {
		if v.Name != "aibot-fullpad" {
			continue
		}
		ct, _ := base64.StdEncoding.DecodeString(v.Encrypt)
		if len(ct) != 64 {
			t.Fatalf("fullpad ciphertext is %d bytes, want 64 (32 of content + 32 of padding)", len(ct))
		}
		return
	}
	t.Fatal("no aibot-fullpad vector")
}

func TestEncryptRoundTrip(t *testing.T) {
	c := testCrypter(t)
	for _, msg := range []string{"", "x", strings.Repeat("码", 5000), strings.Repeat("a", 12)} {
		enc, err := c.Encrypt([]byte(msg))
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.Decrypt(enc)
		if err != nil {
			t.Fatalf("Decrypt(Encrypt(%d bytes)): %v", len(msg), err)
		}
		if string(got) != msg {
			t.Fatalf("round trip of %d bytes changed the message", len(msg))
		}
	}
	a, _ := c.Encrypt([]byte("same"))
	b, _ := c.Encrypt([]byte("same"))
	if a == b {
		t.Fatal("two encryptions of one message are equal: the random prefix is not random")
	}
}

const (
	testToken  = "wecodexToken"
	testAESKey = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"
)

func testCrypter(t testing.TB) *Crypter {
	t.Helper()
	c, err := NewCrypter(testToken, testAESKey, AIBotReceiveID)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestNewCrypterErrors(t *testing.T) {
	cases := []struct {
		name, token, key, want string
	}{
		{"empty token", "", testAESKey, "wecom token is empty: set it to the Token shown in the WeCom admin console"},
		{"short key", "t", testAESKey[:42], "wecom EncodingAESKey has 42 characters, want 43: copy it again from the WeCom admin console"},
		{"long key", "t", testAESKey + "A", "wecom EncodingAESKey has 44 characters, want 43: copy it again from the WeCom admin console"},
		{"not base64", "t", "!" + testAESKey[1:], "wecom EncodingAESKey is not base64: illegal base64 data at input byte 0"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewCrypter(tc.token, tc.key, "")
			if err == nil || err.Error() != tc.want {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestVerifyRejects(t *testing.T) {
	c := testCrypter(t)
	sig := c.Signature("1", "n", "enc")
	for _, tc := range []struct{ name, sig, ts, nonce, enc string }{
		{"other encrypt", sig, "1", "n", "enc2"},
		{"other timestamp", sig, "2", "n", "enc"},
		{"other nonce", sig, "1", "m", "enc"},
		{"empty signature", "", "1", "n", "enc"},
		{"upper-case hex", strings.ToUpper(sig), "1", "n", "enc"},
		{"truncated", sig[:39], "1", "n", "enc"},
	} {
		if err := c.Verify(tc.sig, tc.ts, tc.nonce, tc.enc); !errors.Is(err, ErrSignature) {
			t.Errorf("%s: Verify = %v, want ErrSignature", tc.name, err)
		}
	}
	other, _ := NewCrypter("otherToken", testAESKey, "")
	if err := other.Verify(sig, "1", "n", "enc"); !errors.Is(err, ErrSignature) {
		t.Errorf("other token: Verify = %v, want ErrSignature", err)
	}
}

// rawEncrypt encrypts an arbitrary, already padded plaintext with the test key,
// so tests can build ciphertexts WeCom would never send.
func rawEncrypt(t testing.TB, pt []byte) string {
	t.Helper()
	key, err := DecodeAESKey(testAESKey)
	if err != nil {
		t.Fatal(err)
	}
	block, _ := aes.NewCipher(key)
	ct := make([]byte, len(pt))
	cipher.NewCBCEncrypter(block, key[:16]).CryptBlocks(ct, pt)
	return base64.StdEncoding.EncodeToString(ct)
}

func TestDecryptRejects(t *testing.T) {
	c := testCrypter(t)
	app, _ := NewCrypter(testToken, testAESKey, "wwcorp")
	appEnc, _ := app.Encrypt([]byte("hello"))

	// header(20) + "hi"(2) + pad 10 × 0x0a = 32
	good := append(append(make([]byte, 16), 0, 0, 0, 2, 'h', 'i'), bytes.Repeat([]byte{10}, 10)...)
	if _, err := c.Decrypt(rawEncrypt(t, good)); err != nil {
		t.Fatalf("control plaintext does not decrypt: %v", err)
	}
	mut := func(f func(p []byte)) []byte {
		p := bytes.Clone(good)
		f(p)
		return p
	}
	cases := []struct {
		name, enc, want string
	}{
		{"not base64", "%%%", "wecom: cannot decrypt: base64: illegal base64 data at input byte 0"},
		{"empty", "", "wecom: cannot decrypt: ciphertext is 0 bytes, want a non-zero multiple of 32"},
		{"one AES block", base64.StdEncoding.EncodeToString(make([]byte, 16)), "wecom: cannot decrypt: ciphertext is 16 bytes, want a non-zero multiple of 32"},
		{"pad zero", rawEncrypt(t, mut(func(p []byte) { p[31] = 0 })), "wecom: cannot decrypt: padding byte 0 out of range 1..32"},
		{"pad 33", rawEncrypt(t, mut(func(p []byte) { p[31] = 33 })), "wecom: cannot decrypt: padding byte 33 out of range 1..32"},
		{"pad bytes differ", rawEncrypt(t, mut(func(p []byte) { p[25] = 9 })), "wecom: cannot decrypt: padding bytes are not all 10"},
		{"length too big", rawEncrypt(t, mut(func(p []byte) { p[19] = 3 })), "wecom: cannot decrypt: length field 3 exceeds the 2 bytes that follow"},
		{"length huge", rawEncrypt(t, mut(func(p []byte) { p[16] = 0xff })), "wecom: cannot decrypt: length field 4278190082 exceeds the 2 bytes that follow"},
		{"trailing receive id", rawEncrypt(t, mut(func(p []byte) { p[19] = 1 })), `wecom: cannot decrypt: receive id is "i", want ""`},
		{"self-built app text", appEnc, `wecom: cannot decrypt: receive id is "wwcorp", want ""`},
		{"short plaintext", rawEncrypt(t, bytes.Repeat([]byte{20}, 32)), "wecom: cannot decrypt: plaintext is 12 bytes, shorter than its 20-byte header"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.Decrypt(tc.enc)
			if !errors.Is(err, ErrDecrypt) {
				t.Fatalf("err = %v, want ErrDecrypt", err)
			}
			if err.Error() != tc.want {
				t.Fatalf("err = %q, want %q", err, tc.want)
			}
		})
	}
}

func FuzzDecrypt(f *testing.F) {
	for _, v := range loadVectors(f) {
		f.Add(v.Encrypt)
	}
	f.Add("")
	f.Add("AAAA")
	f.Add(base64.StdEncoding.EncodeToString(make([]byte, 64)))
	c := testCrypter(f)
	f.Fuzz(func(t *testing.T, enc string) {
		msg, err := c.Decrypt(enc)
		if err != nil {
			if !errors.Is(err, ErrDecrypt) {
				t.Fatalf("error %v does not wrap ErrDecrypt", err)
			}
			return
		}
		// Whatever decrypts must survive a round trip unchanged.
		again, err := c.Encrypt(msg)
		if err != nil {
			t.Fatal(err)
		}
		back, err := c.Decrypt(again)
		if err != nil || !bytes.Equal(back, msg) {
			t.Fatalf("round trip of a decrypted message failed: %v", err)
		}
	})
}

func BenchmarkDecrypt(b *testing.B) {
	c := testCrypter(b)
	enc, _ := c.Encrypt(bytes.Repeat([]byte("x"), 400))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Decrypt(enc); err != nil {
			b.Fatal(err)
		}
	}
}
