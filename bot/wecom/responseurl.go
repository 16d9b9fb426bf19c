package wecom

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
)

// ResponseURLMessage is what a bot POSTs, unencrypted, to a callback's
// response_url: a markdown or a template_card message. WeCom accepts one POST
// per response_url within an hour of the callback.
type ResponseURLMessage struct {
	MsgType      string          `json:"msgtype"`
	Markdown     *TextBody       `json:"markdown,omitempty"`
	TemplateCard json.RawMessage `json:"template_card,omitempty"`
}

// MarkdownMessage is a markdown message for a response_url.
func MarkdownMessage(content string) ResponseURLMessage {
	return ResponseURLMessage{MsgType: "markdown", Markdown: &TextBody{Content: content}}
}

// APIResult is WeCom's answer to an API call: {"errcode":0,"errmsg":"ok"}.
type APIResult struct {
	ErrCode int    `json:"errcode"`
	ErrMsg  string `json:"errmsg"`
}

// APIError is a request WeCom answered with a non-zero errcode, on any
// channel: response_url, the long connection's acks, the app's API.
type APIError struct {
	Op   string // what was asked ("" when the caller's wrapping says it)
	Code int
	Msg  string
}

func (e *APIError) Error() string {
	if e.Op != "" {
		return fmt.Sprintf("%s: wecom errcode %d: %s", e.Op, e.Code, e.Msg)
	}
	return fmt.Sprintf("wecom errcode %d: %s", e.Code, e.Msg)
}

// PostResponseURL sends msg to a callback's response_url, when hosts (nil:
// DefaultAllowedHosts) allows it; a client nil is hosts.Client, which
// checks redirects and dialed addresses too. The URL carries a one-time
// response code, so no error returned here contains it.
func PostResponseURL(ctx context.Context, hosts *AllowedHosts, client *http.Client, responseURL string, msg ResponseURLMessage) error {
	body, err := json.Marshal(msg)
	if err != nil {
		return fmt.Errorf("post response_url: marshal: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, responseURL, bytes.NewReader(body))
	if err != nil {
		return errors.New("post response_url: the URL is not valid")
	}
	hosts = hostsOr(hosts)
	if err := hosts.CheckURL(req.URL); err != nil {
		return fmt.Errorf("post response_url: %w", err)
	}
	if client == nil {
		client = hosts.Client(0)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // drop the URL and its response code
		}
		return fmt.Errorf("post response_url: %w", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err != nil {
		return fmt.Errorf("post response_url: read answer: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("post response_url: HTTP %d", resp.StatusCode)
	}
	var r APIResult
	if err := json.Unmarshal(b, &r); err != nil {
		return fmt.Errorf("post response_url: answer is not JSON: %w", err)
	}
	if r.ErrCode != 0 {
		return fmt.Errorf("post response_url: %w", &APIError{Code: r.ErrCode, Msg: r.ErrMsg})
	}
	return nil
}
