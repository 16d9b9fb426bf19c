package wecom

import (
	"crypto/aes"
	"crypto/cipher"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
)

// ErrMediaKey means a message's aeskey is not the base64 of a 32-byte key.
var ErrMediaKey = errors.New("wecom: bad media aeskey")

// MediaKey decodes a long-connection message's aeskey: the base64 of a
// 32-byte AES key that WeCom often sends without its "=" padding, which
// base64.StdEncoding would refuse (WECOM-PROTOCOL.md §G.1 item 3).
func MediaKey(aeskey string) ([]byte, error) {
	s := strings.TrimRight(strings.TrimSpace(aeskey), "=")
	key, err := base64.RawStdEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("%w: not base64: %v", ErrMediaKey, err)
	}
	if len(key) != 32 {
		return nil, fmt.Errorf("%w: decodes to %d bytes, want 32", ErrMediaKey, len(key))
	}
	return key, nil
}

// DecryptMedia opens a downloaded media file: AES-256-CBC with IV = key[:16]
// and PKCS#7 padding to 32 bytes, every pad byte checked. Unlike a callback
// the plaintext has no random prefix or length header: it is the file. Any
// malformed input yields an error wrapping ErrDecrypt; it never panics.
func DecryptMedia(key, ciphertext []byte) ([]byte, error) {
	if len(key) != 32 {
		return nil, fmt.Errorf("%w: media key is %d bytes, want 32", ErrDecrypt, len(key))
	}
	if len(ciphertext) == 0 || len(ciphertext)%aes.BlockSize != 0 {
		return nil, fmt.Errorf("%w: media is %d bytes, want a non-zero multiple of %d", ErrDecrypt, len(ciphertext), aes.BlockSize)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrDecrypt, err)
	}
	pt := make([]byte, len(ciphertext))
	cipher.NewCBCDecrypter(block, key[:aes.BlockSize]).CryptBlocks(pt, ciphertext)
	pad := int(pt[len(pt)-1])
	if pad < 1 || pad > PadBlockSize || pad > len(pt) {
		return nil, fmt.Errorf("%w: media padding byte %d out of range 1..%d", ErrDecrypt, pad, PadBlockSize)
	}
	for _, b := range pt[len(pt)-pad:] {
		if int(b) != pad {
			return nil, fmt.Errorf("%w: media padding bytes are not all %d", ErrDecrypt, pad)
		}
	}
	return pt[:len(pt)-pad], nil
}
