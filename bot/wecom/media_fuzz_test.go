package wecom

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"path"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzDecryptMedia: any key and ciphertext give bytes or ErrDecrypt, never a
// panic; what opens was padded correctly, so re-encrypting it gives back the
// ciphertext.
func FuzzDecryptMedia(f *testing.F) {
	key := bytes.Repeat([]byte{7}, 32)
	f.Add(key, []byte{})
	f.Add(key, make([]byte, 15))
	f.Add(key, make([]byte, 32))
	f.Add(key[:16], make([]byte, 32))
	f.Add(key, make([]byte, 48))
	f.Fuzz(func(t *testing.T, key, ct []byte) {
		pt, err := DecryptMedia(key, ct)
		if err != nil {
			if pt != nil {
				t.Fatalf("error %v with %d bytes", err, len(pt))
			}
			return
		}
		pad := len(ct) - len(pt)
		if pad < 1 || pad > PadBlockSize {
			t.Fatalf("opened with %d pad bytes", pad)
		}
		block, _ := aes.NewCipher(key)
		padded := append(append([]byte(nil), pt...), bytes.Repeat([]byte{byte(pad)}, pad)...)
		again := make([]byte, len(padded))
		cipher.NewCBCEncrypter(block, key[:16]).CryptBlocks(again, padded)
		if !bytes.Equal(again, ct) {
			t.Fatal("re-encrypting the plaintext does not give the ciphertext")
		}
	})
}

// FuzzMediaName: whatever WeCom's header and the message id say, the name is
// one path element a file system takes.
func FuzzMediaName(f *testing.F) {
	for _, s := range []string{
		`attachment; filename*=UTF-8''%E6%97%A5%E5%BF%97.txt`,
		`attachment; filename="../../etc/passwd"`,
		`attachment; filename="a\\b"`,
		`attachment; filename*=UTF-8''..%2F..%2Fx`,
		`attachment; filename=".."`,
		`inline`,
		"",
	} {
		f.Add(s, "CAIQ16HMjQYY", "image/png")
	}
	f.Fuzz(func(t *testing.T, cd, fallback, mimeType string) {
		name := MediaName(cd, fallback, mimeType)
		switch {
		case name == "", name == ".", name == "..":
			t.Fatalf("name %q", name)
		case strings.ContainsAny(name, "/\\\x00"):
			t.Fatalf("name %q has a separator or NUL", name)
		case len(name) > maxNameBytes:
			t.Fatalf("name %q is %d bytes", name, len(name))
		case !utf8.ValidString(name):
			t.Fatalf("name %q is not UTF-8", name)
		case path.Base(name) != name:
			t.Fatalf("name %q is not one path element", name)
		}
		for _, r := range name {
			if r < 0x20 || r == 0x7f {
				t.Fatalf("name %q has control character %U", name, r)
			}
		}
	})
}

func TestSafeName(t *testing.T) {
	long := strings.Repeat("日", 60) + ".log" // 184 bytes
	for in, want := range map[string]string{
		"report.pdf":                    "report.pdf",
		"../../etc/passwd":              "passwd",
		`..\..\boot.ini`:                "boot.ini",
		"..":                            "",
		" . ":                           "",
		"a<b>c:d|e?f*.txt":              "a_b_c_d_e_f_.txt",
		"tab\there\nnl.txt":             "tab here nl.txt",
		"rtl\u202egnp.exe":              "rtlgnp.exe",
		"bad\xffutf8.txt":               "badutf8.txt",
		long:                            strings.Repeat("日", 38) + ".log",
		"x." + strings.Repeat("e", 200): "x." + strings.Repeat("e", 118),
	} {
		if got := SafeName(in); got != want {
			t.Errorf("SafeName(%q) = %q, want %q", in, got, want)
		}
	}
}
