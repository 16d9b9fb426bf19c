package external

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"os"
	"strings"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge"
)

// promptBlocks is p as session/prompt content: its text, then each picture
// as an image block (base64 data, media type, file URI) when the agent
// declared promptCapabilities.image; an agent that did not is told each
// picture's path in the text instead, so it can still open the file.
func promptBlocks(p acpbridge.Prompt, images bool) ([]acp.ContentBlock, error) {
	text := p.Text
	if !images && len(p.Images) > 0 {
		paths := make([]string, len(p.Images))
		for i, img := range p.Images {
			paths[i] = img.Path
		}
		list := "Attached pictures:\n- " + strings.Join(paths, "\n- ")
		text = strings.TrimPrefix(text+"\n\n"+list, "\n\n")
	}
	var blocks []acp.ContentBlock
	if text != "" || len(p.Images) == 0 || !images {
		blocks = append(blocks, acp.TextBlock(text))
	}
	if !images {
		return blocks, nil
	}
	for _, img := range p.Images {
		data, err := os.ReadFile(img.Path)
		if err != nil {
			return nil, fmt.Errorf("read the prompt's picture: %w", err)
		}
		b := acp.ImageBlock(base64.StdEncoding.EncodeToString(data), img.MIME)
		uri := (&url.URL{Scheme: "file", Path: img.Path}).String()
		b.Image.Uri = &uri
		blocks = append(blocks, b)
	}
	return blocks, nil
}
