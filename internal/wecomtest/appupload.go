package wecomtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
)

// Temporary media limits of the app API (DOC 96484): more than 5 bytes; a
// picture at most 10 MB, JPG or PNG; a file at most 20 MB.
const (
	AppMediaMinBytes   = 5
	AppImageMaxBytes   = 10 << 20
	AppFileMaxBytes    = 20 << 20
	ErrcodeMediaSize   = 40009 // image size out of limit
	ErrcodeFileSize    = 40011 // file size out of limit
	ErrcodeInvalidType = 40004 // invalid media type
)

// mediaUpload answers POST /cgi-bin/media/upload?type=image|file with the
// multipart field "media" (its filename is the name the chat shows).
func (a *AppAPI) mediaUpload(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	defer a.mu.Unlock()
	tok, ok := a.checkToken(w, r, "media/upload")
	if !ok {
		return
	}
	rec := AppRecord{API: "media/upload", Token: tok, MsgType: r.URL.Query().Get("type")}
	fail := func(code int, msg string) { a.refuse(w, &rec, code, msg) }
	typ := rec.MsgType
	if typ != "image" && typ != "file" && typ != "voice" && typ != "video" {
		fail(ErrcodeInvalidType, "invalid media type")
		return
	}
	f, hdr, err := r.FormFile("media")
	if err != nil {
		fail(ErrcodeInvalidParameter, "multipart field media missing")
		return
	}
	defer f.Close()
	data, _ := io.ReadAll(io.LimitReader(f, AppFileMaxBytes+1))
	switch {
	case len(data) <= AppMediaMinBytes:
		fail(ErrcodeFileSize, "media too small")
		return
	case typ == "image" && len(data) > AppImageMaxBytes:
		fail(ErrcodeMediaSize, "image size out of limit")
		return
	case typ == "image" && !isPicture(data):
		fail(ErrcodeInvalidType, "image must be JPG or PNG")
		return
	case len(data) > AppFileMaxBytes:
		fail(ErrcodeFileSize, "file size out of limit")
		return
	}
	id := fmt.Sprintf("MEDIA%d%s", a.sequence+1, typ)
	a.uploads[id] = AppMedia{Name: hdr.Filename, ContentType: typ, Data: data}
	rec.Content = id
	a.record(rec)
	writeErrcode(w, 0, "ok", map[string]any{"type": typ, "media_id": id, "created_at": strconv.FormatInt(a.opts.Now().Unix(), 10)})
}

func isPicture(data []byte) bool {
	ct := http.DetectContentType(data)
	return ct == "image/png" || ct == "image/jpeg"
}

// Uploaded is the file media/upload took as mediaID (its ContentType is the
// media type: image, file, …).
func (a *AppAPI) Uploaded(mediaID string) (AppMedia, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	m, ok := a.uploads[mediaID]
	return m, ok
}

// mediaOf checks a media message's media_id: one media/upload issued for
// that type.
func (a *AppAPI) mediaOf(msgType string, raw json.RawMessage) (string, int, string) {
	var b map[string]json.RawMessage
	_ = json.Unmarshal(raw, &b)
	var m struct {
		MediaID string `json:"media_id"`
	}
	_ = json.Unmarshal(b[msgType], &m)
	u, ok := a.uploads[m.MediaID]
	switch {
	case !ok:
		return m.MediaID, ErrcodeInvalidMediaID, "invalid media_id"
	case u.ContentType != msgType:
		return m.MediaID, ErrcodeInvalidParameter, "media_id is not of type " + msgType
	}
	return m.MediaID, 0, ""
}
