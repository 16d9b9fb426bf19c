package codex

import "github.com/wecodex/wecodex/acpbridge"

// turnInput is a prompt as turn/start input: the text, then each picture.
// An image-only prompt sends no empty text item.
func turnInput(p acpbridge.Prompt) []userInput {
	in := make([]userInput, 0, 1+len(p.Images))
	if p.Text != "" || len(p.Images) == 0 {
		in = append(in, userInput{Type: "text", Text: p.Text})
	}
	for _, img := range p.Images {
		in = append(in, userInput{Type: "localImage", Path: img.Path})
	}
	return in
}
