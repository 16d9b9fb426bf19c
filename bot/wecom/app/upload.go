package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"

	"github.com/silenceper/wechat/v2/util"

	"github.com/wecodex/wecodex/bot/wecom"
)

// uploadMedia uploads data as temporary media of type typ ("image" or
// "file") named name (media/upload) and returns its media_id, valid 3
// days. Our own request: silenceper's takes no context.
func (a *api) uploadMedia(ctx context.Context, typ, name string, data []byte) (string, error) {
	const op = "upload media"
	var mediaID string
	err := a.withToken(ctx, op, func(tok string) error {
		var body bytes.Buffer
		mw := multipart.NewWriter(&body)
		part, err := mw.CreateFormFile("media", name)
		if err != nil {
			return err
		}
		if _, err := part.Write(data); err != nil {
			return err
		}
		if err := mw.Close(); err != nil {
			return err
		}
		u := a.base + "/cgi-bin/media/upload?access_token=" + url.QueryEscape(tok) + "&type=" + url.QueryEscape(typ)
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, &body)
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", mw.FormDataContentType())
		resp, err := a.mediaClient.Do(req)
		if err != nil {
			return err // withToken scrubs the token from the URL it quotes
		}
		defer resp.Body.Close()
		raw, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		if err != nil {
			return err
		}
		var r struct {
			util.CommonError
			MediaID string `json:"media_id"`
		}
		if err := json.Unmarshal(raw, &r); err != nil {
			return fmt.Errorf("answer (HTTP %d) is not JSON: %w", resp.StatusCode, err)
		}
		if r.ErrCode != 0 {
			return &wecom.APIError{Op: op, Code: int(r.ErrCode), Msg: r.ErrMsg}
		}
		if r.MediaID == "" {
			return fmt.Errorf("no media_id in the answer")
		}
		mediaID = r.MediaID
		return nil
	})
	return mediaID, err
}

type mediaRefBody struct {
	MediaID string `json:"media_id"`
}

type imageSend struct {
	sendHead
	Image mediaRefBody `json:"image"`
}

type fileSendBody struct {
	sendHead
	File mediaRefBody `json:"file"`
}

// sendMedia sends uploaded media to user as a picture or a file message.
func (a *api) sendMedia(ctx context.Context, user, typ, mediaID string) error {
	head := sendHead{ToUser: user, MsgType: typ, AgentID: a.agentID}
	var body any = fileSendBody{sendHead: head, File: mediaRefBody{mediaID}}
	if typ == "image" {
		body = imageSend{sendHead: head, Image: mediaRefBody{mediaID}}
	}
	_, err := a.send(ctx, "send "+typ, body)
	return err
}
