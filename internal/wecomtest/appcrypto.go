package wecomtest

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// appCrypto is WeCom's side of a self-built app's callback crypto, written
// from the protocol (WECOM-PROTOCOL.md §F.1) with the standard library only,
// so the app channel's crypto is checked against code it shares nothing
// with: AES-256-CBC, key = base64(EncodingAESKey+"="), IV = key[:16],
// plaintext random(16) | length(4, big-endian) | message | corp id,
// PKCS#7-padded to 32 bytes.
type appCrypto struct {
	token  string
	key    []byte
	corpID string
}

func newAppCrypto(token, encodingAESKey, corpID string) (*appCrypto, error) {
	key, err := base64.StdEncoding.DecodeString(encodingAESKey + "=")
	if err != nil || len(key) != 32 {
		return nil, fmt.Errorf("wecomtest app: EncodingAESKey %d characters is not 43 of base64", len(encodingAESKey))
	}
	return &appCrypto{token: token, key: key, corpID: corpID}, nil
}

// sign is msg_signature: hex sha1 of token, timestamp, nonce and the
// ciphertext, sorted and concatenated.
func (c *appCrypto) sign(timestamp, nonce, encrypted string) string {
	parts := []string{c.token, timestamp, nonce, encrypted}
	sort.Strings(parts)
	sum := sha1.Sum([]byte(strings.Join(parts, "")))
	return hex.EncodeToString(sum[:])
}

// encrypt seals msg behind a 16-byte random prefix.
func (c *appCrypto) encrypt(random, msg []byte) (string, error) {
	if len(random) != 16 {
		return "", errors.New("wecomtest app: random prefix must be 16 bytes")
	}
	pt := make([]byte, 0, 20+len(msg)+len(c.corpID)+32)
	pt = append(pt, random...)
	pt = binary.BigEndian.AppendUint32(pt, uint32(len(msg)))
	pt = append(pt, msg...)
	pt = append(pt, c.corpID...)
	pad := 32 - len(pt)%32
	for range pad {
		pt = append(pt, byte(pad))
	}
	block, err := aes.NewCipher(c.key)
	if err != nil {
		return "", err
	}
	ct := make([]byte, len(pt))
	cipher.NewCBCEncrypter(block, c.key[:16]).CryptBlocks(ct, pt)
	return base64.StdEncoding.EncodeToString(ct), nil
}

// decrypt opens what the bot encrypted (its passive replies) and checks
// the corp id at its end.
func (c *appCrypto) decrypt(encrypted string) ([]byte, error) {
	ct, err := base64.StdEncoding.DecodeString(encrypted)
	if err != nil || len(ct) == 0 || len(ct)%32 != 0 {
		return nil, fmt.Errorf("wecomtest app: ciphertext of %d bytes is not whole 32-byte blocks of base64", len(ct))
	}
	block, err := aes.NewCipher(c.key)
	if err != nil {
		return nil, err
	}
	pt := make([]byte, len(ct))
	cipher.NewCBCDecrypter(block, c.key[:16]).CryptBlocks(pt, ct)
	pad := int(pt[len(pt)-1])
	if pad < 1 || pad > 32 {
		return nil, fmt.Errorf("wecomtest app: padding byte %d", pad)
	}
	for _, b := range pt[len(pt)-pad:] {
		if int(b) != pad {
			return nil, errors.New("wecomtest app: padding bytes differ")
		}
	}
	pt = pt[:len(pt)-pad]
	if len(pt) < 20 {
		return nil, errors.New("wecomtest app: plaintext shorter than its header")
	}
	n := int(binary.BigEndian.Uint32(pt[16:20]))
	if n > len(pt)-20 {
		return nil, errors.New("wecomtest app: length field too large")
	}
	if rid := string(pt[20+n:]); rid != c.corpID {
		return nil, fmt.Errorf("wecomtest app: receive id %q, want the corp id %q", rid, c.corpID)
	}
	return pt[20 : 20+n], nil
}
