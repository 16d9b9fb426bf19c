package wecom

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/wecodex/wecodex/bot"
)

func TestParseCallback(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want Callback
	}{
		{
			name: "text single",
			in:   `{"msgid":"m1","aibotid":"B","chattype":"single","from":{"userid":"zhangsan"},"response_url":"https://r/1","msgtype":"text","text":{"content":"hello"}}`,
			want: Callback{Kind: KindMessage, MsgType: "text", MsgID: "m1", AIBotID: "B", ChatType: ChatSingle, UserID: "zhangsan", ResponseURL: "https://r/1", Text: "hello", RawText: "hello"},
		},
		{
			name: "text group strips the mention, keeps quote",
			in:   `{"msgid":"m2","aibotid":"B","chatid":"C","chattype":"group","from":{"userid":"u"},"response_url":"R","msgtype":"text","text":{"content":"@RobotA\u2005run the tests"},"quote":{"msgtype":"text","text":{"content":"earlier"}}}`,
			want: Callback{Kind: KindMessage, MsgType: "text", MsgID: "m2", AIBotID: "B", ChatID: "C", ChatType: ChatGroup, UserID: "u", ResponseURL: "R", Text: "run the tests", RawText: "@RobotA\u2005run the tests", Quote: "earlier"},
		},
		{
			name: "mixed joins text, notes images",
			in:   `{"msgid":"m3","aibotid":"B","chattype":"single","from":{"userid":"u"},"msgtype":"mixed","mixed":{"msg_item":[{"msgtype":"text","text":{"content":"look"}},{"msgtype":"image","image":{"url":"https://img/1"}},{"msgtype":"text","text":{"content":"at this"}}]}}`,
			want: Callback{Kind: KindMessage, MsgType: "mixed", MsgID: "m3", AIBotID: "B", ChatType: ChatSingle, UserID: "u", Text: "look\nat this", RawText: "look\nat this", Media: []MediaRef{{Kind: bot.AttachImage, URL: "https://img/1"}}},
		},
		{
			name: "mixed as a JSON string",
			in:   `{"msgid":"m4","aibotid":"B","chattype":"single","from":{"userid":"u"},"msgtype":"mixed","mixed":"{\"msg_item\":[{\"msgtype\":\"text\",\"text\":{\"content\":\"a\"}}]}"}`,
			want: Callback{Kind: KindMessage, MsgType: "mixed", MsgID: "m4", AIBotID: "B", ChatType: ChatSingle, UserID: "u", Text: "a", RawText: "a"},
		},
		{
			name: "voice as text",
			in:   `{"msgid":"m5","aibotid":"B","chattype":"single","from":{"userid":"u"},"msgtype":"voice","voice":{"content":"语音转文字"}}`,
			want: Callback{Kind: KindMessage, MsgType: "voice", MsgID: "m5", AIBotID: "B", ChatType: ChatSingle, UserID: "u", Text: "语音转文字", RawText: "语音转文字"},
		},
		{
			name: "image",
			in:   `{"msgid":"m6","aibotid":"B","chattype":"single","from":{"userid":"u"},"msgtype":"image","image":{"url":"https://img/2"}}`,
			want: Callback{Kind: KindMessage, MsgType: "image", MsgID: "m6", AIBotID: "B", ChatType: ChatSingle, UserID: "u", Media: []MediaRef{{Kind: bot.AttachImage, URL: "https://img/2"}}},
		},
		{
			name: "file",
			in:   `{"msgid":"m7","aibotid":"B","chattype":"single","from":{"userid":"u"},"msgtype":"file","file":{"url":"https://f/1"}}`,
			want: Callback{Kind: KindMessage, MsgType: "file", MsgID: "m7", AIBotID: "B", ChatType: ChatSingle, UserID: "u", Media: []MediaRef{{Kind: bot.AttachFile, URL: "https://f/1"}}},
		},
		{
			name: "stream refresh",
			in:   `{"msgid":"m8","aibotid":"B","chatid":"C","chattype":"group","from":{"userid":"u"},"msgtype":"stream","stream":{"id":"S1"}}`,
			want: Callback{Kind: KindStreamRefresh, MsgType: "stream", MsgID: "m8", AIBotID: "B", ChatID: "C", ChatType: ChatGroup, UserID: "u", StreamID: "S1"},
		},
		{
			name: "stream refresh with only the essentials",
			in:   `{"aibotid":"B","msgtype":"stream","stream":{"id":"S2"}}`,
			want: Callback{Kind: KindStreamRefresh, MsgType: "stream", AIBotID: "B", StreamID: "S2"},
		},
		{
			name: "enter_chat event",
			in:   `{"msgid":"m9","create_time":1700000000,"aibotid":"B","chattype":"single","from":{"corpid":"wp1","userid":"u"},"msgtype":"event","event":{"eventtype":"enter_chat"}}`,
			want: Callback{Kind: KindEvent, MsgType: "event", MsgID: "m9", AIBotID: "B", ChatType: ChatSingle, UserID: "u", CorpID: "wp1", CreateTime: 1700000000, Event: &Event{Type: "enter_chat"}},
		},
		{
			name: "template card event keeps its detail",
			in:   `{"msgid":"m10","aibotid":"B","chattype":"single","from":{"userid":"u"},"response_url":"R","msgtype":"event","event":{"eventtype":"template_card_event","template_card_event":{"event_key":"stop"}}}`,
			want: Callback{Kind: KindEvent, MsgType: "event", MsgID: "m10", AIBotID: "B", ChatType: ChatSingle, UserID: "u", ResponseURL: "R", Event: &Event{Type: "template_card_event", Detail: json.RawMessage(`{"event_key":"stop"}`), CardKey: "stop"}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseCallback([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestParseCallbackErrors(t *testing.T) {
	const head = `"msgid":"m","aibotid":"B","chattype":"single","from":{"userid":"u"},`
	cases := []struct{ name, in, want string }{
		{"not JSON", `hello`, "wecom: malformed callback: callback is not a JSON object: invalid character 'h' looking for beginning of value"},
		{"array", `[]`, "wecom: malformed callback: callback is not a JSON object: json: cannot unmarshal array into Go value of type wecom.wireCallback"},
		{"trailing data", `{"msgtype":"text"} x`, "wecom: malformed callback: callback has data after its JSON object"},
		{"no msgtype", `{"aibotid":"B"}`, "wecom: malformed callback: msgtype is missing"},
		{"no aibotid", `{"msgtype":"text"}`, "wecom: malformed callback: aibotid is missing"},
		{"no chattype", `{"msgid":"m","aibotid":"B","from":{"userid":"u"},"msgtype":"text","text":{"content":"x"}}`, "wecom: malformed callback: chattype is missing"},
		{"bad chattype", `{"aibotid":"B","chattype":"room","msgtype":"text"}`, `wecom: malformed callback: chattype "room" is neither single nor group`},
		// A decrypted value is echoed quoted and cut, never whole.
		{"long chattype", `{"aibotid":"B","chattype":"` + strings.Repeat("秘", 40) + `","msgtype":"text"}`,
			`wecom: malformed callback: chattype "` + strings.Repeat("秘", 10) + `"… (120 bytes) is neither single nor group`},
		{"group without chatid", `{"aibotid":"B","chattype":"group","msgtype":"text"}`, "wecom: malformed callback: chatid is missing in a group chat"},
		{"no msgid", `{"aibotid":"B","chattype":"single","from":{"userid":"u"},"msgtype":"text","text":{"content":"x"}}`, "wecom: malformed callback: msgid is missing"},
		{"no user", `{"msgid":"m","aibotid":"B","chattype":"single","msgtype":"text","text":{"content":"x"}}`, "wecom: malformed callback: from.userid is missing"},
		{"text without content", `{` + head + `"msgtype":"text","text":{}}`, "wecom: malformed callback: text.content is missing in a text message"},
		{"text wrong type", `{` + head + `"msgtype":"text","text":{"content":5}}`, "wecom: malformed callback: callback is not a JSON object: json: cannot unmarshal number into Go struct field wireContent.text.content of type string"},
		{"voice without content", `{` + head + `"msgtype":"voice"}`, "wecom: malformed callback: voice.content is missing in a voice message"},
		{"image without url", `{` + head + `"msgtype":"image","image":{}}`, "wecom: malformed callback: image.url is missing in an image message"},
		{"file without url", `{` + head + `"msgtype":"file"}`, "wecom: malformed callback: file.url is missing in a file message"},
		{"mixed missing", `{` + head + `"msgtype":"mixed"}`, "wecom: malformed callback: mixed is missing in a mixed message"},
		{"mixed empty", `{` + head + `"msgtype":"mixed","mixed":{"msg_item":[]}}`, "wecom: malformed callback: mixed.msg_item is empty"},
		{"mixed bad item", `{` + head + `"msgtype":"mixed","mixed":{"msg_item":[{"msgtype":"text"}]}}`, "wecom: malformed callback: mixed.msg_item[0].text.content is missing"},
		{"mixed item no type", `{` + head + `"msgtype":"mixed","mixed":{"msg_item":[{"text":{"content":"a"}}]}}`, "wecom: malformed callback: mixed.msg_item[0].msgtype is missing"},
		{"mixed image no url", `{` + head + `"msgtype":"mixed","mixed":{"msg_item":[{"msgtype":"image","image":{}}]}}`, "wecom: malformed callback: mixed.msg_item[0].image.url is missing"},
		{"mixed bad string", `{` + head + `"msgtype":"mixed","mixed":"nope"}`, "wecom: malformed callback: mixed is not an object with msg_item: invalid character 'o' in literal null (expecting 'u')"},
		{"stream no id", `{"aibotid":"B","msgtype":"stream","stream":{}}`, "wecom: malformed callback: stream.id is missing in a stream refresh"},
		{"event missing", `{` + head + `"msgtype":"event"}`, "wecom: malformed callback: event is missing in an event callback"},
		{"event no type", `{` + head + `"msgtype":"event","event":{"eventtype":""}}`, "wecom: malformed callback: event.eventtype is missing or not a string"},
		{"event no msgid", `{"aibotid":"B","chattype":"single","msgtype":"event","event":{"eventtype":"enter_chat"}}`, "wecom: malformed callback: msgid is missing"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseCallback([]byte(tc.in))
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("err = %v, want ErrMalformed", err)
			}
			if err.Error() != tc.want {
				t.Fatalf("err = %q\nwant  %q", err, tc.want)
			}
		})
	}
}

func TestParseCallbackUnsupported(t *testing.T) {
	cb, err := ParseCallback([]byte(`{"msgid":"m","aibotid":"B","chattype":"single","from":{"userid":"u"},"response_url":"R","msgtype":"location","location":{"latitude":1}}`))
	if !errors.Is(err, ErrUnsupported) || err.Error() != `wecom: unsupported callback: msgtype "location"` {
		t.Fatalf("err = %v", err)
	}
	want := Callback{MsgType: "location", MsgID: "m", AIBotID: "B", ChatType: ChatSingle, UserID: "u", ResponseURL: "R"}
	if !reflect.DeepEqual(cb, want) {
		t.Fatalf("got %+v, want %+v", cb, want)
	}
}

func TestCallbackConversation(t *testing.T) {
	if got := (Callback{ChatType: ChatGroup, ChatID: "C", UserID: "u"}).Conversation(); got != GroupChat("C") || got.Key() != "group:C" {
		t.Errorf("group conversation = %#v, key %q", got, got.Key())
	}
	if got := (Callback{ChatType: ChatSingle, UserID: "u"}).Conversation(); got != SingleChat("u") || got.Key() != "single:u" {
		t.Errorf("single conversation = %#v, key %q", got, got.Key())
	}
}

func FuzzParseCallback(f *testing.F) {
	for _, s := range []string{
		`{"msgid":"m1","aibotid":"B","chattype":"single","from":{"userid":"u"},"msgtype":"text","text":{"content":"hello"}}`,
		`{"msgid":"m2","aibotid":"B","chatid":"C","chattype":"group","from":{"userid":"u"},"msgtype":"text","text":{"content":"@R\u2005hi"}}`,
		`{"msgid":"m3","aibotid":"B","chattype":"single","from":{"userid":"u"},"msgtype":"mixed","mixed":{"msg_item":[{"msgtype":"text","text":{"content":"a"}},{"msgtype":"image","image":{"url":"i"}}]}}`,
		`{"msgid":"m4","aibotid":"B","chattype":"single","from":{"userid":"u"},"msgtype":"mixed","mixed":"{\"msg_item\":[]}"}`,
		`{"msgid":"m5","aibotid":"B","chattype":"single","from":{"userid":"u"},"msgtype":"voice","voice":{"content":"v"}}`,
		`{"aibotid":"B","msgtype":"stream","stream":{"id":"S"}}`,
		`{"msgid":"m6","aibotid":"B","chattype":"single","from":{"userid":"u"},"msgtype":"event","event":{"eventtype":"enter_chat"}}`,
		`{"msgid":"m7","aibotid":"B","chattype":"single","msgtype":"event","event":{"eventtype":"x","x":null}}`,
		`null`, `[]`, `{}`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		cb, err := ParseCallback(in)
		if err != nil {
			if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrUnsupported) {
				t.Fatalf("error %v wraps neither ErrMalformed nor ErrUnsupported", err)
			}
			return
		}
		// What parses has what the bot relies on.
		switch cb.Kind {
		case KindMessage:
			if cb.MsgID == "" || cb.UserID == "" {
				t.Fatalf("message without msgid or user: %+v", cb)
			}
		case KindStreamRefresh:
			if cb.StreamID == "" {
				t.Fatal("refresh without stream id")
			}
		case KindEvent:
			if cb.Event == nil || cb.Event.Type == "" {
				t.Fatal("event without type")
			}
		default:
			t.Fatalf("parsed callback has kind %q", cb.Kind)
		}
		if cb.ChatType == ChatGroup && cb.ChatID == "" {
			t.Fatal("group callback without chat id")
		}
	})
}

// An unsupported msgtype is named in the error quoted and cut: the error
// reaches a log line, and the value came out of a decrypted body.
func TestUnsupportedMsgTypeIsEchoedCut(t *testing.T) {
	long := strings.Repeat("v", 5000)
	_, err := ParseCallback([]byte(`{"msgid":"m","aibotid":"B","chattype":"single","from":{"userid":"u"},"msgtype":"` + long + `"}`))
	want := `wecom: unsupported callback: msgtype "` + strings.Repeat("v", 32) + `"… (5000 bytes)`
	if !errors.Is(err, ErrUnsupported) || err.Error() != want {
		t.Fatalf("error %q, want %q", err, want)
	}
	_, err = ParseCallback([]byte(`{"msgid":"m","aibotid":"B","chattype":"single","from":{"userid":"u"},"msgtype":"location"}`))
	if want := `wecom: unsupported callback: msgtype "location"`; err == nil || err.Error() != want {
		t.Fatalf("error %v, want %q", err, want)
	}
}
