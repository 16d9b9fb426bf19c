package scriptedmodel

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
)

// GeneratedImage is one answer of the Images API (POST /v1/images/generations),
// which Codex's image_gen.imagegen tool calls on the OpenAI provider: the
// picture (sent base64) and the prompt the API says it drew.
type GeneratedImage struct {
	PNG           []byte
	RevisedPrompt string
}

// GenerateImages queues the answers of the next image generation requests,
// one each, in order; a request past them fails as unscripted.
func (s *Server) GenerateImages(imgs ...GeneratedImage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.images = append(s.images, imgs...)
}

func (s *Server) serveImage(w http.ResponseWriter, r *http.Request, rec *Request) {
	body, err := readBody(w, r)
	rec.Body = body
	s.mu.Lock()
	var img GeneratedImage
	ok := len(s.images) > 0
	if ok {
		img, s.images = s.images[0], s.images[1:]
	}
	s.mu.Unlock()
	if err != nil || !ok {
		msg := "scriptedmodel: no image generation scripted"
		if err != nil {
			msg = err.Error()
		}
		rec.Status, rec.Err = http.StatusInternalServerError, msg
		s.record(rec)
		writeError(w, http.StatusInternalServerError, msg)
		return
	}
	rec.Status = http.StatusOK
	s.record(rec)
	out, _ := json.Marshal(map[string]any{
		"created": 1796220000,
		"data": []map[string]string{{
			"b64_json":       base64.StdEncoding.EncodeToString(img.PNG),
			"revised_prompt": img.RevisedPrompt,
		}},
		"output_format": "png",
	})
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(out)
}
