package serve

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge"
)

// A prompt's blocks become the Agent's Prompt: text in order, an image
// block saved in the workspace (named by its URI, else by its place), a
// link to a local picture passed as that picture, any other link by its
// path or URI.
func TestPromptFromBlocks(t *testing.T) {
	cwd := t.TempDir()
	png := []byte("\x89PNG\r\n\x1a\nnot really")
	named := acp.ImageBlock(base64.StdEncoding.EncodeToString(png), "image/png")
	uri := "file:///somewhere/else/shot.png"
	named.Image.Uri = &uri
	anon := acp.ImageBlock(base64.StdEncoding.EncodeToString([]byte("jpeg bytes")), "image/jpeg")
	mime := "image/gif"
	pic := acp.ResourceLinkBlock("anim.gif", "file:///data/anim.gif")
	pic.ResourceLink.MimeType = &mime
	got, err := prompt([]acp.ContentBlock{
		acp.TextBlock("Look at these."),
		named,
		anon,
		pic,
		acp.ResourceLinkBlock("notes.txt", "file:///data/notes.txt"),
		acp.ResourceLinkBlock("spec", "https://example.com/spec"),
	}, cwd)
	if err != nil {
		t.Fatal(err)
	}
	want := acpbridge.Prompt{
		Text: "Look at these.\n\n/data/notes.txt\n\nhttps://example.com/spec",
		Images: []acpbridge.Image{
			{Path: filepath.Join(cwd, "attachments", "shot.png"), MIME: "image/png"},
			{Path: filepath.Join(cwd, "attachments", "attachment-3.jpg"), MIME: "image/jpeg"},
			{Path: "/data/anim.gif", MIME: "image/gif"},
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("prompt = %+v\nwant %+v", got, want)
	}
	if b, err := os.ReadFile(want.Images[0].Path); err != nil || string(b) != string(png) {
		t.Fatalf("saved picture: %q %v", b, err)
	}
}

// A bad image block is refused with the block and the problem named.
func TestPromptRefusesBadImages(t *testing.T) {
	for _, tc := range []struct {
		block acp.ContentBlock
		cwd   string
		want  string
	}{
		{acp.ImageBlock("!!not base64", "image/png"), t.TempDir(), "prompt block 0: the image block's data is not base64"},
		{acp.ImageBlock("AAAA", "application/pdf"), t.TempDir(), `prompt block 0: an image block with media type "application/pdf"`},
		{acp.ImageBlock("AAAA", "image/png"), "", "prompt block 0: an image block in a session this connection did not start or load"},
	} {
		if _, err := prompt([]acp.ContentBlock{tc.block}, tc.cwd); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("prompt error %v, want it to start with %q", err, tc.want)
		}
	}
}
