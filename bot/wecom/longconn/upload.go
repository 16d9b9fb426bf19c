package longconn

import (
	"context"
	"crypto/md5"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
)

// Upload commands (§A.9).
const (
	CmdUploadInit   = "aibot_upload_media_init"
	CmdUploadChunk  = "aibot_upload_media_chunk"
	CmdUploadFinish = "aibot_upload_media_finish"
)

// Upload limits of the long connection (§A.9): 512 KiB of raw bytes per
// chunk, at most 100 chunks.
const (
	UploadChunkBytes = 512 << 10
	UploadMaxChunks  = 100
)

// uploadWorkers is how many chunks go at once: the SDK's rule, since WeCom
// answers "system error" to many concurrent chunks.
func uploadWorkers(chunks int) int {
	switch {
	case chunks <= 4:
		return chunks
	case chunks <= 10:
		return 3
	}
	return 2
}

// Upload uploads data as temporary media of type typ ("file", "image", …)
// named name, in 512 KiB chunks, and returns its media_id (valid 3 days).
func Upload(ctx context.Context, s Sender, typ, name string, data []byte) (string, error) {
	chunks := (len(data) + UploadChunkBytes - 1) / UploadChunkBytes
	if chunks == 0 || chunks > UploadMaxChunks {
		return "", fmt.Errorf("upload %s: %d bytes is not 1 to %d chunks of 512 KiB", name, len(data), UploadMaxChunks)
	}
	sum := md5.Sum(data)
	ack, err := s.Request(ctx, CmdUploadInit, NewReqID(CmdUploadInit), map[string]any{
		"type": typ, "filename": name, "total_size": len(data), "total_chunks": chunks, "md5": hex.EncodeToString(sum[:])})
	if err != nil {
		return "", fmt.Errorf("%s: %w", CmdUploadInit, err)
	}
	var init struct {
		UploadID string `json:"upload_id"`
	}
	if json.Unmarshal(ack.Body, &init) != nil || init.UploadID == "" {
		return "", fmt.Errorf("%s: no upload_id in the ack", CmdUploadInit)
	}
	if err := uploadChunks(ctx, s, init.UploadID, data, chunks); err != nil {
		return "", err
	}
	ack, err = s.Request(ctx, CmdUploadFinish, NewReqID(CmdUploadFinish), map[string]string{"upload_id": init.UploadID})
	if err != nil {
		return "", fmt.Errorf("%s: %w", CmdUploadFinish, err)
	}
	var fin struct {
		MediaID string `json:"media_id"`
	}
	if json.Unmarshal(ack.Body, &fin) != nil || fin.MediaID == "" {
		return "", fmt.Errorf("%s: no media_id in the ack", CmdUploadFinish)
	}
	return fin.MediaID, nil
}

// uploadChunks sends every chunk (0-based on the wire), a few at once.
func uploadChunks(ctx context.Context, s Sender, id string, data []byte, chunks int) error {
	next := make(chan int, chunks)
	for i := range chunks {
		next <- i
	}
	close(next)
	var mu sync.Mutex
	var errs []error
	var wg sync.WaitGroup
	for range uploadWorkers(chunks) {
		wg.Go(func() {
			for i := range next {
				part := data[i*UploadChunkBytes : min((i+1)*UploadChunkBytes, len(data))]
				body := map[string]any{"upload_id": id, "chunk_index": i, "base64_data": base64.StdEncoding.EncodeToString(part)}
				if _, err := s.Request(ctx, CmdUploadChunk, NewReqID(CmdUploadChunk), body); err != nil {
					mu.Lock()
					errs = append(errs, fmt.Errorf("%s %d: %w", CmdUploadChunk, i, err))
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// MsgItem is one picture of a final stream frame's msg_item (§A.6).
type MsgItem struct {
	MsgType string       `json:"msgtype"`
	Image   MsgItemImage `json:"image"`
}

// MsgItemImage is a picture's bytes, base64, and the md5 of the raw bytes.
type MsgItemImage struct {
	Base64 string `json:"base64"`
	MD5    string `json:"md5"`
}

// ImageItem is data (a JPG or PNG) as a msg_item.
func ImageItem(data []byte) MsgItem {
	sum := md5.Sum(data)
	return MsgItem{MsgType: "image", Image: MsgItemImage{Base64: base64.StdEncoding.EncodeToString(data), MD5: hex.EncodeToString(sum[:])}}
}

// Caps of a final frame's pictures (§A.12): 10, each 10 MB before base64.
const (
	MaxMsgItems     = 10
	MaxMsgItemBytes = 10 << 20
)
