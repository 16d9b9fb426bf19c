package wecom

import (
	"crypto/md5"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// Caps of a final stream frame's pictures (WECOM-PROTOCOL.md §A.6): at most
// 10, JPG or PNG, each at most 10 MB before base64.
const (
	MaxMsgItems     = 10
	MaxMsgItemBytes = 10 << 20
)

// MsgItems is stream.msg_item as its JSON text: a string, so frames stay
// comparable values; "" is none.
type MsgItems string

// MarshalJSON writes the items as they are.
func (m MsgItems) MarshalJSON() ([]byte, error) {
	if m == "" {
		return []byte("null"), nil
	}
	return []byte(m), nil
}

// UnmarshalJSON keeps the items' JSON text.
func (m *MsgItems) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*m = ""
		return nil
	}
	*m = MsgItems(b)
	return nil
}

type msgItem struct {
	MsgType string `json:"msgtype"`
	Image   struct {
		Base64 string `json:"base64"`
		MD5    string `json:"md5"`
	} `json:"image"`
}

// ImageItems makes the msg_item of a final frame showing images (each a
// JPG or PNG within MaxMsgItemBytes; at most MaxMsgItems).
func ImageItems(images [][]byte) (MsgItems, error) {
	if len(images) == 0 {
		return "", nil
	}
	if len(images) > MaxMsgItems {
		return "", fmt.Errorf("msg_item: %d pictures, at most %d", len(images), MaxMsgItems)
	}
	items := make([]msgItem, len(images))
	for i, data := range images {
		sum := md5.Sum(data)
		items[i].MsgType = "image"
		items[i].Image.Base64 = base64.StdEncoding.EncodeToString(data)
		items[i].Image.MD5 = hex.EncodeToString(sum[:])
	}
	b, err := json.Marshal(items)
	if err != nil {
		return "", fmt.Errorf("encode msg_item: %w", err)
	}
	return MsgItems(b), nil
}
