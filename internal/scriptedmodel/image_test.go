package scriptedmodel

import (
	"reflect"
	"testing"
)

// The pictures of a request are read from its input_image parts: those of
// the latest user message apart, every one in order; a data URL decoded, any
// other URL kept as sent.
func TestRequestImages(t *testing.T) {
	body := []byte(`{"model":"m","input":[
		{"type":"message","role":"user","content":[{"type":"input_text","text":"first"},{"type":"input_image","image_url":"data:image/png;base64,AQID"}]},
		{"type":"message","role":"assistant","content":[{"type":"output_text","text":"ok"}]},
		{"type":"message","role":"user","content":[{"type":"input_text","text":"second"},
			{"type":"input_image","image_url":"data:image/jpeg;base64,/w=="},
			{"type":"input_image","image_url":"https://example.com/a.png"},
			{"type":"input_image","image_url":"data:image/png;base64,!!"}]}
	]}`)
	var req Request
	if err := parseResponsesBody(&req, body); err != nil {
		t.Fatal(err)
	}
	want := []InputImage{
		{MIME: "image/jpeg", Data: []byte{0xff}},
		{URL: "https://example.com/a.png"},
		{URL: "data:image/png;base64,!!"},
	}
	if req.UserText != "second" || !reflect.DeepEqual(req.UserImages, want) {
		t.Fatalf("user text %q, images %+v; want second, %+v", req.UserText, req.UserImages, want)
	}
	all := append([]InputImage{{MIME: "image/png", Data: []byte{1, 2, 3}}}, want...)
	if !reflect.DeepEqual(req.Images, all) {
		t.Fatalf("images %+v, want %+v", req.Images, all)
	}
}
