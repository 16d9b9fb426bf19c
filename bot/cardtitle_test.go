package bot

import "testing"

func TestCardTitle(t *testing.T) {
	for _, c := range []struct {
		q    queued
		want string
	}{
		{queued{Text: "fix the build", Quote: "the log", Attachments: []queuedAttachment{{Name: "a.png"}}}, "fix the build"},
		{queued{Quote: "why does this fail?"}, "why does this fail?"},
		{queued{Attachments: []queuedAttachment{{Kind: AttachImage, Name: "img1.png"}, {Kind: AttachFile, Name: "build.log"}}}, "📎 img1.png, build.log"},
		{queued{}, ""},
	} {
		if got := cardTitle(c.q); got != c.want {
			t.Errorf("cardTitle(%+v) = %q, want %q", c.q, got, c.want)
		}
	}
}
