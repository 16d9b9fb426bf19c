package wecom_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/bot/wecom"
	"github.com/wecodex/wecodex/internal/intaketest"
	"github.com/wecodex/wecodex/internal/wecomtest"
)

// The webhook's key: the bot's EncodingAESKey, bytes 00..1f.
const encodingAESKey = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"

func botKey(t *testing.T) []byte {
	k, err := wecom.DecodeAESKey(encodingAESKey)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// clock is a media server clock a test moves.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func mediaServer(t *testing.T) (*wecomtest.MediaServer, *clock) {
	c := &clock{t: time.Unix(1_800_000_000, 0)}
	s := wecomtest.NewMediaServer(c.now)
	t.Cleanup(s.Close)
	return s, c
}

func add(t *testing.T, s *wecomtest.MediaServer, f wecomtest.MediaFile) wecomtest.MediaLink {
	t.Helper()
	l, err := s.Add(f)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func fetchOne(t *testing.T, f wecom.Fetcher, ref wecom.MediaRef) bot.Attachment {
	t.Helper()
	got := f.Fetch(context.Background(), "msg1", []wecom.MediaRef{ref})
	if len(got) != 1 {
		t.Fatalf("%d attachments, want 1", len(got))
	}
	return got[0]
}

func TestFetchImageWithItsOwnKey(t *testing.T) {
	s, _ := mediaServer(t)
	l := add(t, s, wecomtest.MediaFile{Data: intaketest.PNG})
	if strings.HasSuffix(l.AESKey, "=") {
		t.Fatalf("aeskey %q has padding; WeCom sends it without", l.AESKey)
	}
	a := fetchOne(t, wecom.Fetcher{Hosts: loopback}, wecom.MediaRef{Kind: bot.AttachImage, URL: l.URL, AESKey: l.AESKey})
	want := bot.Attachment{Kind: bot.AttachImage, Name: "msg1.png", MIME: "image/png", Data: intaketest.PNG}
	if !equal(a, want) {
		t.Fatalf("got %+v\nwant %+v", a, want)
	}
}

func TestFetchFileWithTheBotKey(t *testing.T) {
	s, _ := mediaServer(t)
	data := []byte("%PDF-1.4\n% a tiny pdf\n")
	for _, tc := range []struct{ sent, want string }{
		{"构建日志 final.pdf", "构建日志 final.pdf"},
		{"../../etc/passwd", "passwd"},
		{`C:\Users\x\report.pdf`, "report.pdf"},
		{"..", "msg1.pdf"},
		{"a\x00b\x1b[31m.pdf", "ab[31m.pdf"},
		{"", "msg1.pdf"},
	} {
		l := add(t, s, wecomtest.MediaFile{Name: tc.sent, Data: data, Key: botKey(t)})
		a := fetchOne(t, wecom.Fetcher{Hosts: loopback, Key: botKey(t)}, wecom.MediaRef{Kind: bot.AttachFile, URL: l.URL})
		want := bot.Attachment{Kind: bot.AttachFile, Name: tc.want, MIME: "application/pdf", Data: data}
		if !equal(a, want) {
			t.Errorf("sent as %q: got %+v\nwant %+v", tc.sent, a, want)
		}
	}
}

// The decrypt matches openssl's encryption (testdata/make-media-vector.sh).
func TestDecryptMediaOpenSSLVector(t *testing.T) {
	ct, err := os.ReadFile("testdata/media-vector.bin")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/media-vector.txt")
	if err != nil {
		t.Fatal(err)
	}
	got, err := wecom.DecryptMedia(botKey(t), ct)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("got %q, %v; want %q", got, err, want)
	}
}

func TestFetchProblems(t *testing.T) {
	s, clk := mediaServer(t)
	expired := add(t, s, wecomtest.MediaFile{Data: intaketest.PNG})
	clk.t = clk.t.Add(wecomtest.MediaLinkLife + time.Second)
	big := add(t, s, wecomtest.MediaFile{Data: bytes.Repeat([]byte("x"), 2048)})
	badPad := add(t, s, wecomtest.MediaFile{Data: []byte("some log"), BadPadding: true})
	fresh := add(t, s, wecomtest.MediaFile{Data: intaketest.PNG})
	botKeyed := add(t, s, wecomtest.MediaFile{Data: intaketest.PNG, Key: botKey(t)})
	otherKey := strings.TrimRight(base64.StdEncoding.EncodeToString([]byte("0123456789abcdef0123456789ABCDEF")), "=")
	endless, hanging := s.AddEndless(), s.AddHanging()
	f := wecom.Fetcher{Hosts: loopback, MaxBytes: 1024, Timeout: 50 * time.Millisecond}
	for _, tc := range []struct {
		name string
		ref  wecom.MediaRef
		want string
	}{
		{"too large", wecom.MediaRef{Kind: bot.AttachFile, URL: big.URL, AESKey: big.AESKey}, "The file is larger than the 1024-byte limit, so it was not downloaded."},
		{"endless", wecom.MediaRef{Kind: bot.AttachVideo, URL: endless.URL, AESKey: big.AESKey}, "The video is larger than the 1024-byte limit, so it was not downloaded."},
		{"bad padding", wecom.MediaRef{Kind: bot.AttachFile, URL: badPad.URL, AESKey: badPad.AESKey}, "The file could not be decrypted."},
		// Fixed keys and data: whether the wrong key breaks the pad is
		// decided once, not by chance on each run.
		{"wrong key", wecom.MediaRef{Kind: bot.AttachImage, URL: botKeyed.URL, AESKey: otherKey}, "The picture could not be decrypted."},
		{"bad key", wecom.MediaRef{Kind: bot.AttachImage, URL: fresh.URL, AESKey: "not*base64"}, "The picture could not be decrypted: its key is not valid."},
		{"expired link", wecom.MediaRef{Kind: bot.AttachImage, URL: expired.URL, AESKey: expired.AESKey}, "The picture could not be downloaded (refused by WeCom: HTTP 403)."},
		{"never answers", wecom.MediaRef{Kind: bot.AttachImage, URL: hanging.URL, AESKey: fresh.AESKey}, "The picture could not be downloaded within 50ms."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := fetchOne(t, f, tc.ref)
			if a.Problem != tc.want || a.Data != nil || a.Kind != tc.ref.Kind {
				t.Fatalf("got %+v, want problem %q", a, tc.want)
			}
			if strings.Contains(a.Problem, "127.0.0.1") || strings.Contains(a.Problem, "sign=") {
				t.Fatalf("problem %q names the link", a.Problem)
			}
		})
	}
}

// A wrong key almost always breaks the padding: the wrong-key case above
// must fail on the pad check, and a wrong key must never pass as a file.
func TestDecryptMediaRefuses(t *testing.T) {
	key := botKey(t)
	good, err := wecomtest.EncryptMedia(key, []byte("hello"))
	if err != nil {
		t.Fatal(err)
	}
	for name, ct := range map[string][]byte{
		"empty":           nil,
		"not whole block": good[:len(good)-1],
		"one block short": good[:16],
	} {
		if _, err := wecom.DecryptMedia(key, ct); !errors.Is(err, wecom.ErrDecrypt) {
			t.Errorf("%s: err %v, want ErrDecrypt", name, err)
		}
	}
	if _, err := wecom.DecryptMedia(key[:16], good); !errors.Is(err, wecom.ErrDecrypt) {
		t.Errorf("16-byte key: err %v, want ErrDecrypt", err)
	}
	if got, err := wecom.DecryptMedia(key, good); err != nil || string(got) != "hello" {
		t.Fatalf("round trip: %q, %v", got, err)
	}
}

func TestMediaKeyPaddedOrNot(t *testing.T) {
	raw := botKey(t)
	padded := base64.StdEncoding.EncodeToString(raw)
	for _, s := range []string{padded, strings.TrimRight(padded, "=")} {
		k, err := wecom.MediaKey(s)
		if err != nil || !bytes.Equal(k, raw) {
			t.Errorf("MediaKey(%q) = %x, %v", s, k, err)
		}
	}
	if _, err := wecom.MediaKey(base64.StdEncoding.EncodeToString(raw[:16])); !errors.Is(err, wecom.ErrMediaKey) {
		t.Errorf("a 16-byte key: err %v, want ErrMediaKey", err)
	}
}

func TestFetchNamesSeveralFilesApart(t *testing.T) {
	s, _ := mediaServer(t)
	a, b := add(t, s, wecomtest.MediaFile{Data: intaketest.PNG}), add(t, s, wecomtest.MediaFile{Data: intaketest.PNG})
	got := wecom.Fetcher{Hosts: loopback}.Fetch(context.Background(), "m9", []wecom.MediaRef{
		{Kind: bot.AttachImage, URL: a.URL, AESKey: a.AESKey}, {Kind: bot.AttachImage, URL: b.URL, AESKey: b.AESKey},
	})
	if len(got) != 2 || got[0].Name != "m9.png" || got[1].Name != "m9-2.png" {
		t.Fatalf("names %q, %q; want m9.png, m9-2.png", got[0].Name, got[1].Name)
	}
}

func equal(a, b bot.Attachment) bool {
	return a.Kind == b.Kind && a.Name == b.Name && a.MIME == b.MIME && bytes.Equal(a.Data, b.Data) && a.Problem == b.Problem
}

// BenchmarkFetch20MiB: one file at the default cap, fetched over loopback
// from WeCom's media server and decrypted.
func BenchmarkFetch20MiB(b *testing.B) {
	s := wecomtest.NewMediaServer(nil)
	defer s.Close()
	data := bytes.Repeat([]byte("0123456789abcdef"), (wecom.DefaultMediaMaxBytes-64)/16)
	l, err := s.Add(wecomtest.MediaFile{Data: data})
	if err != nil {
		b.Fatal(err)
	}
	ref := []wecom.MediaRef{{Kind: bot.AttachFile, URL: l.URL, AESKey: l.AESKey}}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if a := (wecom.Fetcher{Hosts: loopback}).Fetch(context.Background(), "m", ref); a[0].Problem != "" {
			b.Fatal(a[0].Problem)
		}
	}
}

// loopback allows the tests' fakes, which listen on 127.0.0.1.
var loopback = func() *wecom.AllowedHosts {
	h, err := wecom.NewAllowedHosts("127.0.0.1")
	if err != nil {
		panic(err)
	}
	return h
}()
