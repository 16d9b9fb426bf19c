package serve

import (
	"cmp"
	"encoding/base64"
	"fmt"
	"net/url"
	"path"
	"path/filepath"
	"strings"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge"
)

// prompt turns a session/prompt's content into the Agent's Prompt: text
// blocks as they are; embedded text resources by their URI and text; an
// image block saved as a file in the session's workspace (cwd) under
// attachments/ and passed as a picture; a resource link to a local picture
// passed as that picture, any other link by its path or URI in the text.
func prompt(blocks []acp.ContentBlock, cwd string) (acpbridge.Prompt, error) {
	var p acpbridge.Prompt
	var parts []string
	for i, b := range blocks {
		switch {
		case b.Text != nil:
			parts = append(parts, b.Text.Text)
		case b.Image != nil:
			img, err := saveImage(b.Image, i, cwd)
			if err != nil {
				return acpbridge.Prompt{}, err
			}
			p.Images = append(p.Images, img)
		case b.ResourceLink != nil:
			l := b.ResourceLink
			local := localPath(l.Uri)
			if local != "" && l.MimeType != nil && strings.HasPrefix(*l.MimeType, "image/") {
				p.Images = append(p.Images, acpbridge.Image{Path: local, MIME: *l.MimeType})
				continue
			}
			parts = append(parts, cmp.Or(local, l.Uri))
		case b.Resource != nil && b.Resource.Resource.TextResourceContents != nil:
			r := b.Resource.Resource.TextResourceContents
			parts = append(parts, r.Uri+"\n"+r.Text)
		}
	}
	p.Text = strings.Join(parts, "\n\n")
	return p, nil
}

// saveImage writes an image block's data into the workspace. Its name comes
// from the block's URI when that is a safe file name, else from its place
// in the prompt.
func saveImage(img *acp.ContentBlockImage, index int, cwd string) (acpbridge.Image, error) {
	if !strings.HasPrefix(img.MimeType, "image/") {
		return acpbridge.Image{}, fmt.Errorf("prompt block %d: an image block with media type %q; want image/png, image/jpeg, image/gif or image/webp", index, img.MimeType)
	}
	if cwd == "" {
		return acpbridge.Image{}, fmt.Errorf("prompt block %d: an image block in a session this connection did not start or load (no workspace to save it in)", index)
	}
	data, err := base64.StdEncoding.DecodeString(img.Data)
	if err != nil {
		return acpbridge.Image{}, fmt.Errorf("prompt block %d: the image block's data is not base64: %w", index, err)
	}
	name := ""
	if img.Uri != nil {
		name = path.Base(cmp.Or(localPath(*img.Uri), *img.Uri))
	}
	rel, err := acpbridge.SaveAttachment(cwd, acpbridge.AttachmentName(name, index, img.MimeType), data)
	if err != nil {
		return acpbridge.Image{}, fmt.Errorf("prompt block %d: save the image: %w", index, err)
	}
	return acpbridge.Image{Path: filepath.Join(cwd, rel), MIME: img.MimeType}, nil
}

// localPath is the path of a file:// URI, "" for any other.
func localPath(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" || (u.Host != "" && u.Host != "localhost") {
		return ""
	}
	return u.Path
}
