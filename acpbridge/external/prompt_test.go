package external

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"testing"

	"github.com/wecodex/wecodex/acpbridge"
)

// An agent that declared promptCapabilities.image gets each picture as an
// image block after the text; one that did not is told the paths in the
// text.
func TestPromptBlocks(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a b.png")
	if err := os.WriteFile(path, []byte("picture bytes"), 0o600); err != nil {
		t.Fatal(err)
	}
	p := acpbridge.Prompt{Text: "What is it?", Images: []acpbridge.Image{{Path: path, MIME: "image/png"}}}

	blocks, err := promptBlocks(p, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 2 || blocks[0].Text == nil || blocks[0].Text.Text != "What is it?" || blocks[1].Image == nil {
		t.Fatalf("blocks %+v, want the text then an image", blocks)
	}
	img := blocks[1].Image
	wantURI := "file://" + filepath.ToSlash(dir) + "/a%20b.png"
	if img.MimeType != "image/png" || img.Data != base64.StdEncoding.EncodeToString([]byte("picture bytes")) || img.Uri == nil || *img.Uri != wantURI {
		t.Fatalf("image block %s, %q, %v; want image/png, the file's bytes, %s", img.MimeType, img.Data, img.Uri, wantURI)
	}

	blocks, err = promptBlocks(p, false)
	if err != nil {
		t.Fatal(err)
	}
	if want := "What is it?\n\nAttached pictures:\n- " + path; len(blocks) != 1 || blocks[0].Text == nil || blocks[0].Text.Text != want {
		t.Fatalf("blocks %+v, want one text %q", blocks, want)
	}
	// A picture alone: no empty text block beside the image, and a text
	// naming it for an agent without images.
	alone := acpbridge.Prompt{Images: p.Images}
	if blocks, _ := promptBlocks(alone, true); len(blocks) != 1 || blocks[0].Image == nil {
		t.Fatalf("picture alone to an image agent: %+v", blocks)
	}
	if blocks, _ := promptBlocks(alone, false); len(blocks) != 1 || blocks[0].Text == nil || blocks[0].Text.Text != "Attached pictures:\n- "+path {
		t.Fatalf("picture alone to a text agent: %+v", blocks)
	}
	if _, err := promptBlocks(acpbridge.Prompt{Images: []acpbridge.Image{{Path: filepath.Join(dir, "gone.png")}}}, true); err == nil {
		t.Fatal("a picture that cannot be read was sent")
	}
}
