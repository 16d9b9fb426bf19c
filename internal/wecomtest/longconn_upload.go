package wecomtest

import (
	"bytes"
	"crypto/md5"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"time"
)

// Upload limits of the long connection (§A.9, §A.12): a chunk carries at
// most 512 KiB before base64, an upload at most 100 chunks.
const (
	UploadChunkMax  = 512 << 10
	UploadMaxChunks = 100
	// CodeInvalidMediaID answers a media_id the server never issued
	// (WeCom's 40007).
	CodeInvalidMediaID = 40007
)

// Upload is a file a client uploaded with aibot_upload_media_*, as the
// server put it together.
type Upload struct {
	MediaID  string
	Type     string // file, image, voice, video
	Filename string
	Data     []byte
}

// upload is one upload under way.
type upload struct {
	typ, filename, md5 string
	size, chunks       int
	got                map[int][]byte
}

// uploadLocked judges one of the three upload commands and returns the
// ack's code, message and body.
func (s *LongConnServer) uploadLocked(q request) (int, string, any) {
	switch q.Cmd {
	case "aibot_upload_media_init":
		return s.uploadInitLocked(q.Body)
	case "aibot_upload_media_chunk":
		code, msg := s.uploadChunkLocked(q.Body)
		return code, msg, nil
	}
	return s.uploadFinishLocked(q.Body)
}

func (s *LongConnServer) uploadInitLocked(body json.RawMessage) (int, string, any) {
	var b struct {
		Type        string `json:"type"`
		Filename    string `json:"filename"`
		TotalSize   int    `json:"total_size"`
		TotalChunks int    `json:"total_chunks"`
		MD5         string `json:"md5"`
	}
	if json.Unmarshal(body, &b) != nil {
		return CodeInvalidParam, "invalid body", nil
	}
	switch {
	case b.Type != "file" && b.Type != "image" && b.Type != "voice" && b.Type != "video":
		return CodeInvalidParam, "invalid type", nil
	case b.Filename == "":
		return CodeInvalidParam, "filename missing", nil
	case b.TotalSize <= 0 || b.TotalChunks <= 0 || b.TotalChunks > UploadMaxChunks:
		return CodeInvalidParam, "invalid total_size or total_chunks", nil
	case (b.TotalSize+UploadChunkMax-1)/UploadChunkMax != b.TotalChunks:
		return CodeInvalidParam, "total_chunks does not match total_size", nil
	case len(b.MD5) != 32:
		return CodeInvalidParam, "md5 missing", nil
	}
	id := s.newIDLocked("upload")
	s.uploads[id] = &upload{typ: b.Type, filename: b.Filename, md5: b.MD5, size: b.TotalSize, chunks: b.TotalChunks, got: map[int][]byte{}}
	return 0, "ok", map[string]any{"upload_id": id}
}

func (s *LongConnServer) uploadChunkLocked(body json.RawMessage) (int, string) {
	var b struct {
		UploadID   string `json:"upload_id"`
		ChunkIndex *int   `json:"chunk_index"`
		Base64Data string `json:"base64_data"`
	}
	if json.Unmarshal(body, &b) != nil || b.ChunkIndex == nil {
		return CodeInvalidParam, "invalid body"
	}
	u := s.uploads[b.UploadID]
	if u == nil {
		return CodeInvalidParam, "invalid upload_id"
	}
	// chunk_index is 0-based on the wire (§0.1 item 10).
	if *b.ChunkIndex < 0 || *b.ChunkIndex >= u.chunks {
		return CodeInvalidParam, "chunk_index out of range"
	}
	data, err := base64.StdEncoding.DecodeString(b.Base64Data)
	if err != nil || len(data) == 0 || len(data) > UploadChunkMax {
		return CodeInvalidParam, "invalid base64_data"
	}
	u.got[*b.ChunkIndex] = data
	return 0, "ok"
}

func (s *LongConnServer) uploadFinishLocked(body json.RawMessage) (int, string, any) {
	var b struct {
		UploadID string `json:"upload_id"`
	}
	_ = json.Unmarshal(body, &b)
	u := s.uploads[b.UploadID]
	if u == nil {
		return CodeInvalidParam, "invalid upload_id", nil
	}
	if len(u.got) != u.chunks {
		return CodeInvalidParam, fmt.Sprintf("%d of %d chunks uploaded", len(u.got), u.chunks), nil
	}
	var data bytes.Buffer
	for i := range u.chunks {
		data.Write(u.got[i])
	}
	sum := md5.Sum(data.Bytes())
	if data.Len() != u.size || hex.EncodeToString(sum[:]) != u.md5 {
		return CodeInvalidParam, "size or md5 does not match the chunks", nil
	}
	delete(s.uploads, b.UploadID)
	id := s.newIDLocked("media")
	s.media[id] = Upload{MediaID: id, Type: u.typ, Filename: u.filename, Data: data.Bytes()}
	return 0, "ok", map[string]any{"type": u.typ, "media_id": id, "created_at": fmt.Sprint(time.Now().Unix())}
}

// mediaLocked judges the media_id of an aibot_send_msg of a media type.
func (s *LongConnServer) mediaLocked(msgType string, body json.RawMessage) (int, string) {
	var b map[string]json.RawMessage
	_ = json.Unmarshal(body, &b)
	var m struct {
		MediaID string `json:"media_id"`
	}
	_ = json.Unmarshal(b[msgType], &m)
	u, ok := s.media[m.MediaID]
	if !ok {
		return CodeInvalidMediaID, "invalid media_id"
	}
	if u.Type != msgType {
		return CodeInvalidParam, "media type does not match msgtype"
	}
	return 0, "ok"
}

// Uploads is every file uploaded so far, ordered by media_id.
func (s *LongConnServer) Uploads() []Upload {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Upload, 0, len(s.media))
	for _, u := range s.media {
		out = append(out, u)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].MediaID < out[j].MediaID })
	return out
}

// Uploaded is the file uploaded as mediaID.
func (s *LongConnServer) Uploaded(mediaID string) (Upload, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	u, ok := s.media[mediaID]
	return u, ok
}

// MediaID is body.<msgtype>.media_id of an aibot_send_msg ("" when absent).
func (r Record) MediaID() string {
	var b map[string]json.RawMessage
	_ = json.Unmarshal(r.Body, &b)
	var m struct {
		MediaID string `json:"media_id"`
	}
	_ = json.Unmarshal(b[r.MsgType()], &m)
	return m.MediaID
}

// StreamImages decodes the pictures of a stream frame's stream.msg_item.
func (r Record) StreamImages() [][]byte {
	var b struct {
		Stream struct {
			MsgItem []msgItem `json:"msg_item"`
		} `json:"stream"`
	}
	_ = json.Unmarshal(r.Body, &b)
	var out [][]byte
	for _, it := range b.Stream.MsgItem {
		data, _ := base64.StdEncoding.DecodeString(it.Image.Base64)
		out = append(out, data)
	}
	return out
}

type msgItem struct {
	MsgType string `json:"msgtype"`
	Image   struct {
		Base64 string `json:"base64"`
		MD5    string `json:"md5"`
	} `json:"image"`
}

// MsgItemMaxImages and MsgItemMaxBytes are WeCom's caps on a final stream
// frame's pictures (§A.6): at most 10, each at most 10 MB before base64,
// JPG or PNG.
const (
	MsgItemMaxImages = 10
	MsgItemMaxBytes  = 10 << 20
)

// checkMsgItems judges stream.msg_item: only on a final frame, pictures
// only, each a JPG or PNG whose md5 is the one given.
func checkMsgItems(items []msgItem, finish bool) (int, string) {
	if len(items) == 0 {
		return 0, ""
	}
	if !finish {
		return CodeInvalidParam, "msg_item only with finish"
	}
	if len(items) > MsgItemMaxImages {
		return CodeInvalidParam, "more than 10 msg_item"
	}
	for _, it := range items {
		if it.MsgType != "image" {
			return CodeInvalidParam, "msg_item must be image"
		}
		data, err := base64.StdEncoding.DecodeString(it.Image.Base64)
		if err != nil || len(data) == 0 || len(data) > MsgItemMaxBytes {
			return CodeInvalidParam, "invalid msg_item image"
		}
		if ct := http.DetectContentType(data); ct != "image/png" && ct != "image/jpeg" {
			return CodeInvalidParam, "msg_item image must be JPG or PNG"
		}
		sum := md5.Sum(data)
		if hex.EncodeToString(sum[:]) != it.Image.MD5 {
			return CodeInvalidParam, "msg_item md5 does not match"
		}
	}
	return 0, ""
}
