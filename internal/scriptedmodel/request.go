package scriptedmodel

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Request is what the server recorded about one HTTP request from Codex.
type Request struct {
	Seq    int    // 1-based arrival order over all requests
	Method string // e.g. POST
	Path   string // e.g. /v1/responses
	Status int    // HTTP status answered
	// Err says why the request was not answered with a scripted stream (an
	// unexpected endpoint, an unparsable body, the script had no reply).
	Err string

	// The fields below are parsed from a /v1/responses body.
	Model string
	// Effort is the body's reasoning.effort ("" when it has none).
	Effort string
	// UserText is the text of the latest user message in the input: the
	// prompt of the turn being answered.
	UserText string
	// UserImages are the pictures of the latest user message (its
	// input_image parts), in order: what the turn being answered attached.
	UserImages []InputImage
	// Images are the pictures of every input item, history included, in
	// order.
	Images []InputImage
	// InputTypes lists each input item's type ("message", "reasoning",
	// "function_call", "function_call_output", ...), in order.
	InputTypes []string
	// Developer are the texts of the input's developer messages, in order:
	// Codex's permission notes and the thread's developer instructions.
	Developer []string
	// CallOutputs are the input's function_call_output items: what Codex
	// reports back after running a tool.
	CallOutputs []CallOutput
	Body        []byte // the raw body, for debugging a failing test
}

// CallOutput is one function_call_output input item.
type CallOutput struct {
	CallID string
	Output string
}

// CallOutput returns the output reported for callID, if the request has one.
func (r *Request) CallOutput(callID string) (string, bool) {
	for _, c := range r.CallOutputs {
		if c.CallID == callID {
			return c.Output, true
		}
	}
	return "", false
}

// wireRequest is the part of a Responses API request body we read.
type wireRequest struct {
	Model     string `json:"model"`
	Reasoning struct {
		Effort string `json:"effort"`
	} `json:"reasoning"`
	Input []wireInputItem `json:"input"`
}

type wireInputItem struct {
	Type    string          `json:"type"`
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
	CallID  string          `json:"call_id"`
	Output  json.RawMessage `json:"output"`
}

type wireContent struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	ImageURL string `json:"image_url"`
}

// parseResponsesBody fills req's parsed fields from a /v1/responses body.
func parseResponsesBody(req *Request, body []byte) error {
	var w wireRequest
	if err := json.Unmarshal(body, &w); err != nil {
		return fmt.Errorf("decode responses request body: %w", err)
	}
	req.Model = w.Model
	req.Effort = w.Reasoning.Effort
	for _, it := range w.Input {
		typ := it.Type
		if typ == "" && it.Role != "" {
			typ = "message" // the API accepts role-only items as messages
		}
		req.InputTypes = append(req.InputTypes, typ)
		switch typ {
		case "message":
			images := contentImages(it.Content)
			req.Images = append(req.Images, images...)
			switch it.Role {
			case "user":
				req.UserText = contentText(it.Content)
				req.UserImages = images
			case "developer":
				req.Developer = append(req.Developer, contentText(it.Content))
			}
		case "function_call_output":
			req.CallOutputs = append(req.CallOutputs, CallOutput{CallID: it.CallID, Output: contentText(it.Output)})
		}
	}
	return nil
}

// contentText flattens a content field, which is either a string or a list of
// typed parts, to its text.
func contentText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s
	}
	var parts []wireContent
	if err := json.Unmarshal(raw, &parts); err != nil {
		return ""
	}
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}
