package longconn

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/bot/wecom"
)

func TestParseCallback(t *testing.T) {
	for _, tc := range []struct {
		name string
		cmd  string
		body string
		want wecom.Callback
		err  error
	}{
		{"single text", CmdMsgCallback,
			`{"msgid":"m1","chattype":"single","from":{"userid":"zhangsan"},"msgtype":"text","text":{"content":"/stop"}}`,
			wecom.Callback{Kind: wecom.KindMessage, ReqID: "R", MsgID: "m1", ChatType: wecom.ChatSingle, UserID: "zhangsan", MsgType: "text", Text: "/stop", RawText: "/stop"}, nil},
		{"group mention stripped", CmdMsgCallback,
			`{"msgid":"m2","chatid":"wrk1","chattype":"group","from":{"userid":"lisi"},"msgtype":"text","text":{"content":"@Codex  /stop"},"quote":{"msgtype":"text","text":{"content":"CI 又挂了"}}}`,
			wecom.Callback{Kind: wecom.KindMessage, ReqID: "R", MsgID: "m2", ChatType: wecom.ChatGroup, ChatID: "wrk1", UserID: "lisi", MsgType: "text", Text: "/stop", RawText: "@Codex  /stop", Quote: "CI 又挂了"}, nil},
		{"mixed text parts", CmdMsgCallback,
			`{"msgid":"m3","chatid":"wrk1","chattype":"group","from":{"userid":"lisi"},"msgtype":"mixed","mixed":{"msg_item":[{"msgtype":"text","text":{"content":"@Codex look"}},{"msgtype":"image","image":{"url":"u"}},{"msgtype":"text","text":{"content":"here"}}]}}`,
			wecom.Callback{Kind: wecom.KindMessage, ReqID: "R", MsgID: "m3", ChatType: wecom.ChatGroup, ChatID: "wrk1", UserID: "lisi", MsgType: "mixed", Text: "look\nhere", RawText: "@Codex look\nhere",
				Media: []wecom.MediaRef{{Kind: bot.AttachImage, URL: "u"}}}, nil},
		{"voice transcript", CmdMsgCallback,
			`{"msgid":"m4","chattype":"single","from":{"userid":"u"},"msgtype":"voice","voice":{"content":"修一下"}}`,
			wecom.Callback{Kind: wecom.KindMessage, ReqID: "R", MsgID: "m4", ChatType: wecom.ChatSingle, UserID: "u", MsgType: "voice", Text: "修一下", RawText: "修一下"}, nil},
		{"card click nested", CmdEventCallback,
			`{"msgid":"e1","chattype":"single","from":{"userid":"u"},"msgtype":"event","event":{"eventtype":"template_card_event","template_card_event":{"event_key":"appr:1:yes","task_id":"t1"}}}`,
			wecom.Callback{Kind: wecom.KindEvent, ReqID: "R", MsgID: "e1", ChatType: wecom.ChatSingle, UserID: "u", MsgType: "event", Event: &wecom.Event{Type: "template_card_event",
				Detail: json.RawMessage(`{"event_key":"appr:1:yes","task_id":"t1"}`), CardKey: "appr:1:yes", TaskID: "t1"}}, nil},
		{"system sender", CmdMsgCallback, `{"msgid":"m5","from":{"userid":"sys"},"msgtype":"text"}`, wecom.Callback{}, ErrIgnored},
		{"group without chatid", CmdMsgCallback, `{"msgid":"m6","chattype":"group","from":{"userid":"u"},"msgtype":"text"}`, wecom.Callback{}, ErrIgnored},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseCallback(Frame{Cmd: tc.cmd, Headers: Headers{ReqID: "R"}, Body: []byte(tc.body)})
			if !errors.Is(err, tc.err) || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %+v, %v\nwant %+v, %v", got, err, tc.want, tc.err)
			}
		})
	}
}

func FuzzDecodeFrame(f *testing.F) {
	f.Add([]byte(`{"cmd":"aibot_msg_callback","headers":{"req_id":"R"},"body":{"msgid":"m","from":{"userid":"u"},"msgtype":"text","text":{"content":"a\u0001b"}}}`))
	f.Add([]byte("{\"cmd\":\"aibot_msg_callback\",\"headers\":{\"req_id\":\"R\"},\"body\":{\"text\":{\"content\":\"a\x01\rb\"}}}"))
	f.Add([]byte(`{"headers":{"req_id":"ping_1"},"errcode":0}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		fr, err := decodeFrame(data)
		if err != nil {
			return
		}
		for _, b := range sanitize(data) {
			if b < 0x20 && b != '\t' && b != '\n' {
				t.Fatalf("sanitize left control byte %#x", b)
			}
		}
		if fr.Cmd == CmdMsgCallback || fr.Cmd == CmdEventCallback {
			_, _ = ParseCallback(fr)
		}
	})
}

// from.corpid, which WeCom sends for people of another company, reaches the
// message, so access can refuse an external contact.
func TestParseCallbackKeepsTheSendersCorp(t *testing.T) {
	in, err := ParseCallback(Frame{Cmd: CmdMsgCallback, Headers: Headers{ReqID: "R"},
		Body: []byte(`{"msgid":"m","chattype":"single","from":{"userid":"bob","corpid":"wwTheirs"},"msgtype":"text","text":{"content":"hi"}}`)})
	if err != nil || in.CorpID != "wwTheirs" || in.UserID != "bob" {
		t.Fatalf("inbound %+v, %v", in, err)
	}
}
