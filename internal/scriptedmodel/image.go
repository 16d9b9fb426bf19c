package scriptedmodel

import (
	"encoding/base64"
	"encoding/json"
	"strings"
)

// InputImage is one input_image part of a request. Codex sends a local
// image inline, as a data URL; a test compares Data with the picture's bytes.
type InputImage struct {
	// MIME is the data URL's media type ("image/png"); "" for a plain URL.
	MIME string
	// Data is the decoded picture; nil when URL is not a base64 data URL.
	Data []byte
	// URL is the part's image_url as sent, when it is not a data URL; a
	// data URL is not kept twice.
	URL string
}

// contentImages returns the input_image parts of a content field (a string
// content has none).
func contentImages(raw json.RawMessage) []InputImage {
	var parts []wireContent
	if len(raw) == 0 || json.Unmarshal(raw, &parts) != nil {
		return nil
	}
	var out []InputImage
	for _, p := range parts {
		if p.Type == "input_image" {
			out = append(out, parseImageURL(p.ImageURL))
		}
	}
	return out
}

// parseImageURL decodes "data:<mime>;base64,<data>"; anything else is kept
// as a URL.
func parseImageURL(u string) InputImage {
	rest, ok := strings.CutPrefix(u, "data:")
	if !ok {
		return InputImage{URL: u}
	}
	meta, data, ok := strings.Cut(rest, ",")
	mime, isBase64 := strings.CutSuffix(meta, ";base64")
	if !ok || !isBase64 {
		return InputImage{URL: u}
	}
	b, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return InputImage{URL: u}
	}
	return InputImage{MIME: mime, Data: b}
}
