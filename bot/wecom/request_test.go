package wecom

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestParseQuery(t *testing.T) {
	q, err := ParseQuery(url.Values{"msg_signature": {"s"}, "timestamp": {"1"}, "nonce": {"n"}, "echostr": {"e+/="}})
	if err != nil {
		t.Fatal(err)
	}
	if q != (Query{Signature: "s", Timestamp: "1", Nonce: "n", EchoStr: "e+/="}) {
		t.Fatalf("q = %+v", q)
	}
	back, _ := ParseQuery(q.Values())
	if back != q {
		t.Fatalf("Values round trip = %+v", back)
	}
	for _, missing := range []string{"msg_signature", "timestamp", "nonce"} {
		v := url.Values{"msg_signature": {"s"}, "timestamp": {"1"}, "nonce": {"n"}}
		v.Del(missing)
		_, err := ParseQuery(v)
		if want := "wecom: malformed callback: query parameter " + missing + " is missing"; err == nil || err.Error() != want {
			t.Errorf("without %s: err = %v, want %q", missing, err, want)
		}
	}
}

func TestReadBody(t *testing.T) {
	b, err := ReadBody(bytes.NewReader(make([]byte, MaxBodyBytes)))
	if err != nil || len(b) != MaxBodyBytes {
		t.Fatalf("exactly the cap: %d bytes, %v", len(b), err)
	}
	_, err = ReadBody(bytes.NewReader(make([]byte, MaxBodyBytes+1)))
	if !errors.Is(err, ErrBodyTooLarge) || err.Error() != "wecom: request body too large: more than 1048576 bytes" {
		t.Fatalf("one byte over: %v", err)
	}
	if HTTPStatus(err) != http.StatusRequestEntityTooLarge {
		t.Fatalf("status = %d", HTTPStatus(err))
	}
}

func TestCheckTimestamp(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	ts := func(d time.Duration) string { return strconv.FormatInt(now.Add(d).Unix(), 10) }
	for _, d := range []time.Duration{0, -TimestampWindow, TimestampWindow, -time.Minute} {
		if err := CheckTimestamp(ts(d), now, TimestampWindow); err != nil {
			t.Errorf("%s: %v", d, err)
		}
	}
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{-TimestampWindow - time.Second, "wecom: timestamp outside the accepted window: timestamp is 5m1s away from now, limit 5m0s"},
		{TimestampWindow + time.Second, "wecom: timestamp outside the accepted window: timestamp is -5m1s away from now, limit 5m0s"},
	} {
		err := CheckTimestamp(ts(tc.d), now, TimestampWindow)
		if !errors.Is(err, ErrStaleTimestamp) || err.Error() != tc.want {
			t.Errorf("%s: err = %v, want %q", tc.d, err, tc.want)
		}
	}
	if err := CheckTimestamp("12ab", now, TimestampWindow); !errors.Is(err, ErrMalformed) {
		t.Errorf("non-numeric: %v", err)
	}
}

func TestVerifyURL(t *testing.T) {
	c := testCrypter(t)
	echo, _ := c.Encrypt([]byte("1234567890"))
	q := Query{Timestamp: "1700000000", Nonce: "n", EchoStr: echo}
	q.Signature = c.Signature(q.Timestamp, q.Nonce, echo)
	got, err := c.VerifyURL(q)
	if err != nil || string(got) != "1234567890" {
		t.Fatalf("VerifyURL = %q, %v", got, err)
	}
	bad := q
	bad.Signature = c.Signature(q.Timestamp, "other", echo)
	if _, err := c.VerifyURL(bad); !errors.Is(err, ErrSignature) || HTTPStatus(err) != 401 {
		t.Fatalf("forged: %v", err)
	}
	noEcho := q
	noEcho.EchoStr = ""
	if _, err := c.VerifyURL(noEcho); !errors.Is(err, ErrMalformed) {
		t.Fatalf("no echostr: %v", err)
	}
}

// signedRequest builds a callback POST as WeCom sends it.
func signedRequest(t testing.TB, c *Crypter, now time.Time, plaintext string) *http.Request {
	t.Helper()
	enc, err := c.Encrypt([]byte(plaintext))
	if err != nil {
		t.Fatal(err)
	}
	q := Query{Timestamp: strconv.FormatInt(now.Unix(), 10), Nonce: "abc"}
	q.Signature = c.Signature(q.Timestamp, q.Nonce, enc)
	return httptest.NewRequest(http.MethodPost, "/wecom/aibot?"+q.Values().Encode(), strings.NewReader(fmt.Sprintf(`{"encrypt":%q}`, enc)))
}

func TestOpenRequest(t *testing.T) {
	c := testCrypter(t)
	now := time.Unix(1_700_000_000, 0)
	const msg = `{"msgtype":"text"}`

	q, got, err := c.OpenRequest(signedRequest(t, c, now, msg), now)
	if err != nil || string(got) != msg || q.Nonce != "abc" {
		t.Fatalf("OpenRequest = %+v %q %v", q, got, err)
	}

	cases := []struct {
		name   string
		req    func() *http.Request
		status int
		is     error
	}{
		{"stale", func() *http.Request { return signedRequest(t, c, now.Add(-6*time.Minute), msg) }, 403, ErrStaleTimestamp},
		{"forged", func() *http.Request {
			r := signedRequest(t, c, now, msg)
			v := r.URL.Query()
			v.Set("msg_signature", strings.Repeat("0", 40))
			r.URL.RawQuery = v.Encode()
			return r
		}, 401, ErrSignature},
		{"other token", func() *http.Request {
			o, _ := NewCrypter("other", testAESKey, "")
			return signedRequest(t, o, now, msg)
		}, 401, ErrSignature},
		{"too large", func() *http.Request {
			r := signedRequest(t, c, now, msg)
			r.Body = io.NopCloser(bytes.NewReader(make([]byte, 2<<20)))
			return r
		}, 413, ErrBodyTooLarge},
		{"not JSON", func() *http.Request {
			r := signedRequest(t, c, now, msg)
			r.Body = http.NoBody
			return r
		}, 400, ErrMalformed},
		{"no query", func() *http.Request {
			return httptest.NewRequest(http.MethodPost, "/wecom/aibot", strings.NewReader(`{}`))
		}, 400, ErrMalformed},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := c.OpenRequest(tc.req(), now)
			if !errors.Is(err, tc.is) {
				t.Fatalf("err = %v, want %v", err, tc.is)
			}
			if got := HTTPStatus(err); got != tc.status {
				t.Fatalf("HTTPStatus = %d, want %d", got, tc.status)
			}
		})
	}
}

// BenchmarkCallbackRoundTrip is the protocol share of the webhook budget:
// open a signed message callback, parse it, seal the first stream frame.
func BenchmarkCallbackRoundTrip(b *testing.B) {
	c := testCrypter(b)
	now := time.Unix(1_700_000_000, 0)
	msg := `{"msgid":"m1","aibotid":"B","chattype":"single","from":{"userid":"zhangsan"},"response_url":"https://r/1","msgtype":"text","text":{"content":"please run the tests and fix what fails"}}`
	enc, _ := c.Encrypt([]byte(msg))
	q := Query{Timestamp: strconv.FormatInt(now.Unix(), 10), Nonce: "abc"}
	q.Signature = c.Signature(q.Timestamp, q.Nonce, enc)
	target := "/wecom/aibot?" + q.Values().Encode()
	body := fmt.Sprintf(`{"encrypt":%q}`, enc)
	b.ReportAllocs()
	for b.Loop() {
		r := httptest.NewRequest(http.MethodPost, target, strings.NewReader(body))
		q, pt, err := c.OpenRequest(r, now)
		if err != nil {
			b.Fatal(err)
		}
		cb, err := ParseCallback(pt)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := c.SealStream(StreamFrame{ID: cb.MsgID, Content: "<think>…</think>"}, q.Timestamp, q.Nonce); err != nil {
			b.Fatal(err)
		}
	}
}
