package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/silenceper/wechat/v2/credential"
	"github.com/silenceper/wechat/v2/util"
	"github.com/silenceper/wechat/v2/work"
	workconfig "github.com/silenceper/wechat/v2/work/config"
	"github.com/silenceper/wechat/v2/work/message"

	"github.com/wecodex/wecodex/bot/wecom"
)

// DefaultAPIBase is WeCom's API host, which every silenceper URL names.
const DefaultAPIBase = "https://qyapi.weixin.qq.com"

// Errcodes that mean the access token is no longer good: drop it, fetch a
// new one and try once more (WECOM-PROTOCOL.md §F.4).
const (
	errcodeInvalidToken = 40014
	errcodeExpiredToken = 42001
)

// errcodeCardCodeSpent answers an update_template_card whose response_code
// is unknown, already used or past its 72 hours: WeCom's global error codes
// (https://developer.work.weixin.qq.com/document/path/90313) list 60140
// 无效的response_code, "可能是response_code已经过期" (as crawled 2024-04-08 into
// xen0n/go-workwx errcodes/mod.go). The card was updated already, or can no
// longer be: nothing to retry.
const errcodeCardCodeSpent = 60140

// cardCodeSpent reports whether err says the card's response_code is spent.
func cardCodeSpent(err error) bool {
	var e *wecom.APIError
	return errors.As(err, &e) && e.Code == errcodeCardCodeSpent
}

// tokenRefused reports whether err says the access token was refused.
func tokenRefused(err error) bool {
	var e *wecom.APIError
	return errors.As(err, &e) && (e.Code == errcodeInvalidToken || e.Code == errcodeExpiredToken)
}

// secretInURL finds the access token and secret that silenceper's errors
// carry inside the URLs they quote.
var secretInURL = regexp.MustCompile(`(access_token|corpsecret)=[^&\s"']*`)

// scrub is err with any token or secret in its text replaced, so it may be
// logged; nil stays nil.
func scrub(err error) error {
	if err == nil {
		return nil
	}
	var e *wecom.APIError
	if errors.As(err, &e) {
		return err // built by us from errcode and errmsg only
	}
	return errors.New(secretInURL.ReplaceAllString(err.Error(), "$1=REDACTED"))
}

// configureHTTP sets silenceper's process-wide HTTP client, which has no
// timeout of its own, and points every URL it builds at base. Both are
// package variables of silenceper's: one app per process.
func configureHTTP(base string, timeout time.Duration) {
	util.DefaultHTTPClient = &http.Client{Timeout: timeout}
	base = strings.TrimSuffix(base, "/")
	if base == DefaultAPIBase {
		util.SetURIModifier(nil)
		return
	}
	util.SetURIModifier(func(uri string) string {
		if rest, ok := strings.CutPrefix(uri, DefaultAPIBase); ok {
			return base + rest
		}
		return uri
	})
}

// api is the app's outbound side: silenceper's work client for the token
// and message/send, and our own requests where it has none (or, for media,
// where its own cannot be bounded).
type api struct {
	corpID  string
	agentID int64
	base    string // DefaultAPIBase, or Options.APIBase
	// mediaClient downloads media within wecom.allowed_hosts, with no
	// timeout of its own: each download's context carries
	// wecom.media.timeout.
	mediaClient *http.Client
	tokens      credential.AccessTokenContextHandle
	cache       *tokenCache
	message     *message.Client
	log         *slog.Logger
}

func newAPI(corpID, secret string, agentID int64, base string, tc *tokenCache, mediaClient *http.Client, log *slog.Logger) (*api, error) {
	w := work.NewWork(&workconfig.Config{CorpID: corpID, CorpSecret: secret, AgentID: fmt.Sprint(agentID), Cache: tc})
	// NewWork's handle is a *WorkAccessToken, which takes a context.
	tokens, ok := w.GetContext().AccessTokenHandle.(credential.AccessTokenContextHandle)
	if !ok {
		return nil, errors.New("wecom app: silenceper's access token handle takes no context")
	}
	return &api{corpID: corpID, agentID: agentID, base: strings.TrimSuffix(base, "/"), mediaClient: mediaClient, tokens: tokens, cache: tc,
		message: w.GetMessage(), log: log}, nil
}

// withToken runs call with the access token; when WeCom refuses the token
// it is dropped, a new one fetched and call run once more. The error names
// op and carries no token.
func (a *api) withToken(ctx context.Context, op string, call func(token string) error) error {
	for try := 0; ; try++ {
		tok, err := a.tokens.GetAccessTokenContext(ctx)
		if err != nil {
			a.cache.fetchFailed(context.WithoutCancel(ctx))
			return fmt.Errorf("wecom app %s: get the access token: %w", op, scrub(err))
		}
		err = call(tok)
		if try > 0 || !tokenRefused(err) {
			if err != nil {
				return fmt.Errorf("wecom app %s: %w", op, scrub(err))
			}
			return nil
		}
		a.log.Info("access token refused; fetching a new one", "op", op, "errcode", errcodeOf(err))
		if err := a.cache.refused(ctx, tok); err != nil {
			return fmt.Errorf("wecom app %s: drop the refused access token: %w", op, err)
		}
	}
}

func errcodeOf(err error) int64 {
	var e *wecom.APIError
	if errors.As(err, &e) {
		return int64(e.Code)
	}
	return 0
}

// apiError turns silenceper's CommonError into ours.
func apiError(op string, err error) error {
	var ce *util.CommonError
	if errors.As(err, &ce) {
		return &wecom.APIError{Op: op, Code: int(ce.ErrCode), Msg: ce.ErrMsg}
	}
	return err
}

// sendHead is message/send's common part with agentid as the number WeCom
// type-checks for (silenceper's SendRequestCommon makes it a string).
type sendHead struct {
	ToUser  string `json:"touser"`
	MsgType string `json:"msgtype"`
	AgentID int64  `json:"agentid"`
}

type markdownSend struct {
	sendHead
	Markdown struct {
		Content string `json:"content"`
	} `json:"markdown"`
}

type cardSend struct {
	sendHead
	TemplateCard wecom.TemplateCard `json:"template_card"`
}

// sendMarkdown sends one markdown message to user.
func (a *api) sendMarkdown(ctx context.Context, user, content string) error {
	m := markdownSend{sendHead: sendHead{ToUser: user, MsgType: "markdown", AgentID: a.agentID}}
	m.Markdown.Content = content
	_, err := a.send(ctx, "send markdown", m)
	return err
}

// sendCard sends a template card to user and returns its response_code,
// which updates it once.
func (a *api) sendCard(ctx context.Context, user string, tc wecom.TemplateCard) (string, error) {
	return a.send(ctx, "send template card", cardSend{sendHead: sendHead{ToUser: user, MsgType: "template_card", AgentID: a.agentID}, TemplateCard: tc})
}

func (a *api) send(ctx context.Context, op string, body any) (string, error) {
	var code string
	err := a.withToken(ctx, op, func(string) error {
		resp, err := a.message.Send(op, body)
		if err != nil {
			return apiError(op, err)
		}
		if resp.InvalidUser != "" {
			return &wecom.APIError{Op: op, Code: 81013, Msg: "receiver not in the app's visible range"}
		}
		code = resp.ResponseCode
		return nil
	})
	return code, err
}

// cardUpdate is update_template_card's body (missing from silenceper).
type cardUpdate struct {
	UserIDs      []string           `json:"userids"`
	AgentID      int64              `json:"agentid"`
	ResponseCode string             `json:"response_code"`
	TemplateCard wecom.TemplateCard `json:"template_card"`
}

// updateCard replaces user's card that responseCode names with tc. The code
// works once: a refused update is not retried with it.
func (a *api) updateCard(ctx context.Context, user, responseCode string, tc wecom.TemplateCard) error {
	body := cardUpdate{UserIDs: []string{user}, AgentID: a.agentID, ResponseCode: responseCode, TemplateCard: tc}
	const op = "update template card"
	return a.withToken(ctx, op, func(tok string) error {
		raw, err := util.PostJSONContext(ctx, DefaultAPIBase+"/cgi-bin/message/update_template_card?access_token="+tok, body)
		if err != nil {
			return err
		}
		var r util.CommonError
		if err := json.Unmarshal(raw, &r); err != nil {
			return fmt.Errorf("answer is not JSON: %w", err)
		}
		if r.ErrCode != 0 {
			return &wecom.APIError{Op: op, Code: int(r.ErrCode), Msg: r.ErrMsg}
		}
		return nil
	})
}

// errMediaTooLarge: the file is larger than wecom.media.max_bytes.
var errMediaTooLarge = errors.New("the file is larger than wecom.media.max_bytes")

// mediaLimits are wecom.media.*: how long one download may take, and how
// large a file may be.
type mediaLimits struct {
	Timeout  time.Duration
	MaxBytes int64
}

// fetchMedia downloads an inbound picture, voice or file by its MediaId
// (media/get). It asks WeCom itself rather than through silenceper's
// GetTempFile, which takes no context and reads any size: the download stops
// at lim.MaxBytes and at lim.Timeout, as the AI bot's do.
func (a *api) fetchMedia(ctx context.Context, mediaID string, lim mediaLimits) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, lim.Timeout)
	defer cancel()
	var data []byte
	tooLarge := false
	err := a.withToken(ctx, "get media", func(tok string) error {
		b, err := a.getMedia(ctx, tok, mediaID, lim.MaxBytes)
		tooLarge = errors.Is(err, errMediaTooLarge)
		data = b
		return err
	})
	if tooLarge {
		return nil, errMediaTooLarge
	}
	return data, err
}

func (a *api) getMedia(ctx context.Context, tok, mediaID string, maxBytes int64) ([]byte, error) {
	const op = "get media"
	u := a.base + "/cgi-bin/media/get?access_token=" + url.QueryEscape(tok) + "&media_id=" + url.QueryEscape(mediaID)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	resp, err := a.mediaClient.Do(req)
	if err != nil {
		return nil, err // withToken scrubs the token from the URL it quotes
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("media/get answered HTTP %d", resp.StatusCode)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxBytes+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > maxBytes {
		return nil, errMediaTooLarge
	}
	// A refusal is JSON with an errcode; a file is anything else.
	if _, err := util.HandleFileResponse(b, op); err != nil {
		return nil, apiError(op, err)
	}
	return b, nil
}
