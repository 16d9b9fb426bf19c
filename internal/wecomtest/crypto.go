package wecomtest

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// crypter is WeCom's side of the callback crypto, written from the protocol
// (WECOM-PROTOCOL.md §F.1, §G.2) and checked against the openssl vectors in
// bot/wecom/testdata. It shares no code with the bot's own crypto on
// purpose: a fake that reused the bot's code would agree with the bot's bugs.
//
// Ciphertext = base64(AES-256-CBC(key, iv = key[:16],
// PKCS#7-to-32(random(16) | uint32 BE len(msg) | msg | receiveID))).
type crypter struct {
	token     string
	key       []byte // 32 bytes; the IV is its first 16
	receiveID string // "" for the AI bot
}

// aiBotReceiveID is the receive id in every AI-bot plaintext: none.
const aiBotReceiveID = ""

// wecomPadBlock is the block WeCom pads to: 32 bytes, not AES's 16.
const wecomPadBlock = 32

func newCrypter(token, encodingAESKey, receiveID string) (*crypter, error) {
	if token == "" {
		return nil, errors.New("the token is empty")
	}
	if len(encodingAESKey) != 43 {
		return nil, fmt.Errorf("EncodingAESKey has %d characters, want 43", len(encodingAESKey))
	}
	key, err := base64.StdEncoding.DecodeString(encodingAESKey + "=")
	if err != nil {
		return nil, fmt.Errorf("EncodingAESKey is not base64: %w", err)
	}
	return &crypter{token: token, key: key, receiveID: receiveID}, nil
}

// signature is msg_signature: hex sha1 of the four strings sorted bytewise
// and joined without a separator.
func (c *crypter) signature(timestamp, nonce, encrypted string) string {
	parts := []string{c.token, timestamp, nonce, encrypted}
	sort.Strings(parts)
	sum := sha1.Sum([]byte(strings.Join(parts, "")))
	return hex.EncodeToString(sum[:])
}

func (c *crypter) encrypt(msg []byte) (string, error) {
	random := make([]byte, 16)
	if _, err := rand.Read(random); err != nil {
		return "", fmt.Errorf("encrypt: random prefix: %w", err)
	}
	return c.encryptWithRandom(random, msg)
}

// encryptWithRandom is encrypt with a chosen 16-byte prefix, for the vectors.
func (c *crypter) encryptWithRandom(random, msg []byte) (string, error) {
	if len(random) != 16 {
		return "", fmt.Errorf("encrypt: random prefix has %d bytes, want 16", len(random))
	}
	var pt bytes.Buffer
	pt.Write(random)
	_ = binary.Write(&pt, binary.BigEndian, uint32(len(msg)))
	pt.Write(msg)
	pt.WriteString(c.receiveID)
	pad := wecomPadBlock - pt.Len()%wecomPadBlock
	pt.Write(bytes.Repeat([]byte{byte(pad)}, pad))

	block, err := aes.NewCipher(c.key)
	if err != nil {
		return "", fmt.Errorf("encrypt: %w", err)
	}
	ct := make([]byte, pt.Len())
	cipher.NewCBCEncrypter(block, c.key[:aes.BlockSize]).CryptBlocks(ct, pt.Bytes())
	return base64.StdEncoding.EncodeToString(ct), nil
}

// decrypt opens what a bot encrypted, refusing anything WeCom would not
// accept: bad base64, partial blocks, bad padding, a length that does not
// fit, a receive id that is not this bot's.
func (c *crypter) decrypt(encrypted string) ([]byte, error) {
	ct, err := base64.StdEncoding.DecodeString(encrypted)
	if err != nil {
		return nil, fmt.Errorf("decrypt: base64: %w", err)
	}
	if len(ct) == 0 || len(ct)%wecomPadBlock != 0 {
		return nil, fmt.Errorf("decrypt: ciphertext is %d bytes, want a non-zero multiple of %d", len(ct), wecomPadBlock)
	}
	block, err := aes.NewCipher(c.key)
	if err != nil {
		return nil, fmt.Errorf("decrypt: %w", err)
	}
	pt := make([]byte, len(ct))
	cipher.NewCBCDecrypter(block, c.key[:aes.BlockSize]).CryptBlocks(pt, ct)
	pad := int(pt[len(pt)-1])
	if pad < 1 || pad > wecomPadBlock || !bytes.Equal(pt[len(pt)-pad:], bytes.Repeat([]byte{byte(pad)}, pad)) {
		return nil, errors.New("decrypt: bad PKCS#7 padding")
	}
	pt = pt[:len(pt)-pad]
	if len(pt) < 20 {
		return nil, fmt.Errorf("decrypt: plaintext is %d bytes, shorter than its 20-byte header", len(pt))
	}
	n := binary.BigEndian.Uint32(pt[16:20])
	if uint64(n) > uint64(len(pt)-20) {
		return nil, fmt.Errorf("decrypt: length field %d exceeds the %d bytes that follow", n, len(pt)-20)
	}
	msg, rid := pt[20:20+n], pt[20+n:]
	if string(rid) != c.receiveID {
		return nil, fmt.Errorf("decrypt: receive id is %q, want %q", rid, c.receiveID)
	}
	return msg, nil
}
