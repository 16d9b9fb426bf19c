package wecom

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestSealStreamOpenReply(t *testing.T) {
	c := testCrypter(t)
	f := StreamFrame{ID: "s1", Finish: true, Content: "<think>plan</think>done"}
	body, err := c.SealStream(f, "1700000000", "n1")
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"encrypt":"`, `"msgsignature":"`, `"timestamp":"1700000000"`, `"nonce":"n1"`} {
		if !strings.Contains(string(body), key) {
			t.Errorf("envelope %s lacks %s", body, key)
		}
	}
	pt, err := c.OpenReply(body)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"msgtype":"stream","stream":{"id":"s1","finish":true,"content":"\u003cthink\u003eplan\u003c/think\u003edone"}}`; string(pt) != want {
		t.Fatalf("plaintext = %s\nwant        %s", pt, want)
	}
	r, err := ParseReply(pt)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r, Reply{MsgType: "stream", Stream: &f}) {
		t.Fatalf("reply = %+v", r)
	}

	// The reply signature is checked like a callback's.
	tampered := strings.Replace(string(body), `"nonce":"n1"`, `"nonce":"n2"`, 1)
	if _, err := c.OpenReply([]byte(tampered)); !errors.Is(err, ErrSignature) {
		t.Fatalf("tampered reply: %v", err)
	}
}

func TestEnvelopeNumericTimestamp(t *testing.T) {
	c := testCrypter(t)
	enc, _ := c.Encrypt([]byte(`{"msgtype":"stream","stream":{"id":"x"}}`))
	body := `{"encrypt":"` + enc + `","msgsignature":"` + c.Signature("1700000000", "n", enc) + `","timestamp":1700000000,"nonce":"n"}`
	if _, err := c.OpenReply([]byte(body)); err != nil {
		t.Fatal(err)
	}
}

func TestStreamFrameValidate(t *testing.T) {
	ok := StreamFrame{ID: "s", Content: strings.Repeat("a", MaxStreamContentBytes)}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		f    StreamFrame
		want string
	}{
		{StreamFrame{}, "stream frame: id is empty"},
		{StreamFrame{ID: "s", Content: strings.Repeat("a", MaxStreamContentBytes+1)}, "stream frame s: content is 20481 bytes, limit 20480"},
		{StreamFrame{ID: "s", Content: "码"[:2]}, "stream frame s: content is not valid UTF-8"},
	} {
		if err := tc.f.Validate(); err == nil || err.Error() != tc.want {
			t.Errorf("Validate = %v, want %q", err, tc.want)
		}
		if _, err := testCrypter(t).SealStream(tc.f, "1", "n"); err == nil || err.Error() != tc.want {
			t.Errorf("SealStream = %v, want %q", err, tc.want)
		}
	}
}

func TestParseReplyErrors(t *testing.T) {
	for in, want := range map[string]string{
		`x`:                           "wecom: malformed callback: reply is not JSON: invalid character 'x' looking for beginning of value",
		`{}`:                          "wecom: malformed callback: reply has no msgtype",
		`{"msgtype":"stream"}`:        "wecom: malformed callback: stream reply has no stream.id",
		`{"msgtype":"text"}`:          "wecom: malformed callback: text reply has no text",
		`{"msgtype":"template_card"}`: "wecom: malformed callback: template_card reply has no template_card",
	} {
		if _, err := ParseReply([]byte(in)); err == nil || err.Error() != want {
			t.Errorf("ParseReply(%s) = %v, want %q", in, err, want)
		}
	}
}

func BenchmarkSealStream(b *testing.B) {
	c := testCrypter(b)
	f := StreamFrame{ID: "stream-1", Content: strings.Repeat("progress line\n", 200)}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.SealStream(f, "1700000000", "nonce"); err != nil {
			b.Fatal(err)
		}
	}
}
