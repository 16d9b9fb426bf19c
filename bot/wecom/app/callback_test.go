package app

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/wecodex/wecodex/bot/wecom"
	"github.com/wecodex/wecodex/internal/wecomtest"
)

func TestParseCallback(t *testing.T) {
	const head = "<xml><ToUserName><![CDATA[ww0123456789abcdef]]></ToUserName><FromUserName><![CDATA[zhangsan]]></FromUserName><CreateTime>1733000000</CreateTime><AgentID>1000002</AgentID>"
	for _, tc := range []struct {
		name, xml string
		want      Callback
		err       string // "" for none; ErrUnsupported's text, or what the malformed error names
	}{
		{"text", head + "<MsgType><![CDATA[text]]></MsgType><Content><![CDATA[你好 <b>]]></Content><MsgId>7300000000000000001</MsgId></xml>",
			Callback{Kind: KindMessage, MsgType: "text", MsgID: "7300000000000000001", Content: "你好 <b>"}, ""},
		{"image", head + "<MsgType>image</MsgType><PicUrl>http://p/1</PicUrl><MediaId>M1</MediaId><MsgId>2</MsgId></xml>",
			Callback{Kind: KindMessage, MsgType: "image", MsgID: "2", PicURL: "http://p/1", MediaID: "M1"}, ""},
		{"voice with transcript", head + "<MsgType>voice</MsgType><MediaId>V1</MediaId><Format>amr</Format><Recognition>run the tests</Recognition><MsgId>3</MsgId></xml>",
			Callback{Kind: KindMessage, MsgType: "voice", MsgID: "3", MediaID: "V1", Recognition: "run the tests"}, ""},
		{"file", head + "<MsgType>file</MsgType><MediaId>F1</MediaId><FileName>a.pdf</FileName><MsgId>4</MsgId></xml>",
			Callback{Kind: KindMessage, MsgType: "file", MsgID: "4", MediaID: "F1", FileName: "a.pdf"}, ""},
		{"card click", head + "<MsgType>event</MsgType><Event>template_card_event</Event><EventKey>appr:1:deny</EventKey><TaskId>T1</TaskId><ResponseCode>RC</ResponseCode></xml>",
			Callback{Kind: KindClick, MsgType: "event", Event: "template_card_event", EventKey: "appr:1:deny", TaskID: "T1", ResponseCode: "RC"}, ""},
		{"enter_agent", head + "<MsgType>event</MsgType><Event>enter_agent</Event></xml>",
			Callback{Kind: KindEvent, MsgType: "event", Event: "enter_agent"}, ""},
		{"video", head + "<MsgType>video</MsgType><MediaId>X</MediaId><MsgId>5</MsgId></xml>",
			Callback{MsgType: "video", MsgID: "5", MediaID: "X"}, "wecom app: unsupported callback: msgtype \"video\""},
		{"other corp", strings.Replace(head, "ww0123456789abcdef", "wwother", 1) + "<MsgType>text</MsgType><Content>x</Content><MsgId>1</MsgId></xml>",
			Callback{}, `ToUserName is "wwother", not this corp`},
		{"other agent", strings.Replace(head, "1000002", "1000003", 1) + "<MsgType>text</MsgType><Content>x</Content><MsgId>1</MsgId></xml>",
			Callback{}, `AgentID is "1000003", not this app's 1000002`},
		{"no sender", strings.Replace(head, "zhangsan", "", 1) + "<MsgType>text</MsgType><Content>x</Content><MsgId>1</MsgId></xml>",
			Callback{}, "FromUserName is missing"},
		{"no msgid", head + "<MsgType>text</MsgType><Content>x</Content></xml>", Callback{}, "MsgId is missing in a text message"},
		{"empty text", head + "<MsgType>text</MsgType><MsgId>1</MsgId></xml>", Callback{}, "Content is missing in a text message"},
		{"click without key", head + "<MsgType>event</MsgType><Event>template_card_event</Event></xml>", Callback{}, "EventKey is missing"},
		{"not xml", "{\"msgtype\":\"text\"}", Callback{}, "callback is not an <xml> document"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseCallback([]byte(tc.xml), testCorp, testAgent)
			if tc.err == "" {
				if err != nil {
					t.Fatal(err)
				}
			} else if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("err %v, want one naming %q", err, tc.err)
			} else if !errors.Is(err, ErrUnsupported) && !errors.Is(err, wecom.ErrMalformed) {
				t.Fatalf("err %v is neither unsupported nor malformed", err)
			}
			if tc.want.MsgType != "" {
				tc.want.User, tc.want.CreateTime, tc.want.AgentID = "zhangsan", 1733000000, testAgent
			}
			if got != tc.want {
				t.Fatalf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// appVectors reads internal/wecomtest/testdata/app-vectors.tsv, made by
// openssl.
func appVectors(t testing.TB) []wecomtest.Vector {
	t.Helper()
	f, err := os.Open("../../../internal/wecomtest/testdata/app-vectors.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	vs, err := wecomtest.ReadVectors(f)
	if err != nil {
		t.Fatal(err)
	}
	return vs
}

// The channel opens callbacks that openssl sealed: signature checked over
// the Encrypt, plaintext out, the corp id as receive id.
func TestOpenOpenSSLVectors(t *testing.T) {
	vs := appVectors(t)
	if len(vs) != 4 {
		t.Fatalf("%d vectors", len(vs))
	}
	for _, v := range vs {
		cr, err := wecom.NewCrypter(v.Token, v.EncodingAESKey, v.ReceiveID)
		if err != nil {
			t.Fatal(err)
		}
		body := "<xml><ToUserName><![CDATA[" + v.ReceiveID + "]]></ToUserName><AgentID><![CDATA[1000002]]></AgentID><Encrypt><![CDATA[" + v.Encrypt + "]]></Encrypt></xml>"
		plain, err := openEnvelope(cr, wecom.Query{Signature: v.Signature, Timestamp: v.Timestamp, Nonce: v.Nonce}, []byte(body))
		if err != nil || string(plain) != string(v.Message) {
			t.Fatalf("%s: %q %v", v.Name, plain, err)
		}
		if _, err := openEnvelope(cr, wecom.Query{Signature: v.Signature, Timestamp: v.Timestamp, Nonce: v.Nonce + "x"}, []byte(body)); !errors.Is(err, wecom.ErrSignature) {
			t.Fatalf("%s with another nonce: %v, want a signature error", v.Name, err)
		}
	}
	cr, _ := wecom.NewCrypter(vs[0].Token, vs[0].EncodingAESKey, vs[0].ReceiveID)
	plain, _ := openEnvelope(cr, wecom.Query{Signature: vs[0].Signature, Timestamp: vs[0].Timestamp, Nonce: vs[0].Nonce},
		[]byte("<xml><Encrypt>"+vs[0].Encrypt+"</Encrypt></xml>"))
	cb, err := ParseCallback(plain, vs[0].ReceiveID, testAgent)
	if err != nil || cb.Content != "你好, codex" || cb.MsgID != "7300000000000000001" {
		t.Fatalf("parsed vector: %+v %v", cb, err)
	}
}

// FuzzOpenCallback feeds arbitrary envelopes through signature (computed
// over whatever Encrypt they carry), decryption and parsing: errors, never
// a panic, and an accepted callback always names a sender.
func FuzzOpenCallback(f *testing.F) {
	for _, v := range appVectors(f) {
		f.Add([]byte("<xml><Encrypt><![CDATA[" + v.Encrypt + "]]></Encrypt></xml>"))
	}
	f.Add([]byte("<xml><Encrypt>AAAA</Encrypt></xml>"))
	f.Add([]byte("<xml>"))
	v := appVectors(f)[0]
	cr, err := wecom.NewCrypter(v.Token, v.EncodingAESKey, v.ReceiveID)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var env envelope
		_ = xmlUnmarshal(body, &env)
		q := wecom.Query{Signature: cr.Signature("1", "n", env.Encrypt), Timestamp: "1", Nonce: "n"}
		plain, err := openEnvelope(cr, q, body)
		if err != nil {
			return
		}
		cb, err := ParseCallback(plain, v.ReceiveID, testAgent)
		if err == nil && cb.User == "" {
			t.Fatalf("accepted a callback without a sender: %+v", cb)
		}
	})
}

// FuzzParseCallback: arbitrary plaintext never panics the parser, and what
// it accepts is for this corp and app.
func FuzzParseCallback(f *testing.F) {
	for _, v := range appVectors(f) {
		f.Add(v.Message)
	}
	f.Fuzz(func(t *testing.T, plain []byte) {
		cb, err := ParseCallback(plain, testCorp, testAgent)
		if err == nil && (cb.User == "" || cb.AgentID != testAgent || cb.Kind == "") {
			t.Fatalf("accepted %+v", cb)
		}
	})
}
