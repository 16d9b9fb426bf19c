package wecom

import (
	"errors"
	"reflect"
	"testing"

	"github.com/wecodex/wecodex/bot"
)

func TestParseContent(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     Content
	}{
		{"image with its key", `{"msgtype":"image","image":{"url":"https://m/1","aeskey":"K1"}}`,
			Content{Media: []MediaRef{{Kind: bot.AttachImage, URL: "https://m/1", AESKey: "K1"}}}},
		{"file", `{"msgtype":"file","file":{"url":"https://m/2","aeskey":"K2"}}`,
			Content{Media: []MediaRef{{Kind: bot.AttachFile, URL: "https://m/2", AESKey: "K2"}}}},
		{"video", `{"msgtype":"video","video":{"url":"https://m/3"}}`,
			Content{Media: []MediaRef{{Kind: bot.AttachVideo, URL: "https://m/3"}}}},
		{"mixed keeps order", `{"msgtype":"mixed","mixed":{"msg_item":[{"msgtype":"image","image":{"url":"a","aeskey":"ka"}},{"msgtype":"text","text":{"content":"why?"}},{"msgtype":"image","image":{"url":"b"}}]}}`,
			Content{Text: "why?", Media: []MediaRef{{Kind: bot.AttachImage, URL: "a", AESKey: "ka"}, {Kind: bot.AttachImage, URL: "b"}}}},
		{"quote of text", `{"msgtype":"text","text":{"content":"fix it"},"quote":{"msgtype":"text","text":{"content":"CI is red"}}}`,
			Content{Text: "fix it", Quote: "CI is red"}},
		{"quote of an image", `{"msgtype":"text","text":{"content":"what is this"},"quote":{"msgtype":"image","image":{"url":"q"}}}`,
			Content{Text: "what is this", Quote: "[a picture]"}},
		{"quote of mixed", `{"msgtype":"text","text":{"content":"and?"},"quote":{"msgtype":"mixed","mixed":{"msg_item":[{"msgtype":"text","text":{"content":"see"}},{"msgtype":"image","image":{"url":"q"}}]}}}`,
			Content{Text: "and?", Quote: "see\n[a picture]"}},
		{"quote of a file and of voice", `{"msgtype":"voice","voice":{"content":"read it"},"quote":{"msgtype":"file","file":{"url":"q"}}}`,
			Content{Text: "read it", Quote: "[a file]"}},
		{"unreadable quote says nothing", `{"msgtype":"text","text":{"content":"x"},"quote":{"msgtype":"image"}}`,
			Content{Text: "x"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseContent([]byte(tc.in))
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %+v, %v\nwant %+v", got, err, tc.want)
			}
		})
	}
}

func TestParseContentErrors(t *testing.T) {
	for in, want := range map[string]string{
		`{"msgtype":"image","image":{}}`:   "wecom: malformed callback: image.url is missing in an image message",
		`{"msgtype":"file"}`:               "wecom: malformed callback: file.url is missing in a file message",
		`{"msgtype":"video","video":null}`: "wecom: malformed callback: video.url is missing in a video message",
		`{"msgtype":"voice","voice":{}}`:   "wecom: malformed callback: voice.content is missing in a voice message",
	} {
		_, err := ParseContent([]byte(in))
		if !errors.Is(err, ErrMalformed) || err.Error() != want {
			t.Errorf("%s: err %v, want %q", in, err, want)
		}
	}
}

func TestPrompt(t *testing.T) {
	for _, tc := range []struct {
		text, quote string
		media       bool
		wantText    string
		wantQuote   string
	}{
		{"fix it", "CI is red", false, "fix it", "CI is red"},
		{"", "CI is red", false, "CI is red", ""},    // quote-only @mention
		{"  ", "CI is red", true, "  ", "CI is red"}, // the picture is the message
		{"/stop", "CI is red", false, "/stop", ""},
		{"", "/new", false, "", "/new"}, // a quoted command is not run
		{"", "", false, "", ""},
	} {
		gt, gq := Prompt(tc.text, tc.quote, tc.media)
		if gt != tc.wantText || gq != tc.wantQuote {
			t.Errorf("Prompt(%q, %q, %v) = %q, %q; want %q, %q", tc.text, tc.quote, tc.media, gt, gq, tc.wantText, tc.wantQuote)
		}
	}
}
