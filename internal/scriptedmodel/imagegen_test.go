package scriptedmodel

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// TestGenerateImagesAnswersInOrder: each Images API request, zstd-encoded
// as Codex sends it with a ChatGPT login, gets the next queued picture; one
// past them fails and is reported.
func TestGenerateImagesAnswersInOrder(t *testing.T) {
	s := startServer(t, Sequence())
	s.GenerateImages(GeneratedImage{PNG: []byte("png-1"), RevisedPrompt: "one"})
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	body := enc.EncodeAll([]byte(`{"prompt":"a card"}`), nil)
	send := func() *http.Response {
		req, err := http.NewRequest(http.MethodPost, s.URL()+"/images/generations", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Encoding", "zstd")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = resp.Body.Close() })
		return resp
	}
	var got struct {
		Data []struct {
			B64JSON       string `json:"b64_json"`
			RevisedPrompt string `json:"revised_prompt"`
		} `json:"data"`
	}
	resp := send()
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil || resp.StatusCode != http.StatusOK || len(got.Data) != 1 {
		t.Fatalf("first request: status %d, %+v, %v", resp.StatusCode, got, err)
	}
	if pic, _ := base64.StdEncoding.DecodeString(got.Data[0].B64JSON); string(pic) != "png-1" || got.Data[0].RevisedPrompt != "one" {
		t.Errorf("first answer %+v, want png-1 revised as one", got.Data[0])
	}
	if resp := send(); resp.StatusCode != http.StatusInternalServerError {
		t.Errorf("second request: status %d, want 500 (nothing queued)", resp.StatusCode)
	}
	reqs := s.Requests()
	if len(reqs) != 2 || string(reqs[0].Body) != `{"prompt":"a card"}` || reqs[1].Err != "scriptedmodel: no image generation scripted" {
		t.Errorf("recorded %+v, want the decoded body, then the unscripted request's error", reqs)
	}
}
