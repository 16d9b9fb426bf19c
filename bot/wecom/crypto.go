package wecom

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/silenceper/wechat/v2/util"
)

// AIBotReceiveID is the receive id WeCom appends to every AI-bot plaintext: the
// empty string. A self-built app uses its corp id instead.
const AIBotReceiveID = ""

// Layout of a WeCom ciphertext: AES-256-CBC over
// random(16) | big-endian length(4) | message | receive id, PKCS#7-padded to a
// multiple of 32 bytes (WeCom's block size for padding, not AES's).
const (
	randomLen    = 16
	lengthLen    = 4
	headerLen    = randomLen + lengthLen
	padBlockSize = PadBlockSize
	aesKeyLen    = 43
)

var (
	// ErrSignature means a msg_signature did not match: the request was not
	// signed with our token. Nothing in it may be trusted or decrypted.
	ErrSignature = errors.New("wecom: signature mismatch")
	// ErrDecrypt means a ciphertext could not be opened: bad base64, a length
	// that is not whole blocks, bad padding, a length field that does not fit,
	// or the wrong receive id.
	ErrDecrypt = errors.New("wecom: cannot decrypt")
)

// Crypter signs, verifies, encrypts and decrypts WeCom callbacks for one
// token/EncodingAESKey pair. It is safe for concurrent use.
type Crypter struct {
	token     string
	key       []byte // 32 bytes, AES-256; its first 16 bytes are the IV
	block     cipher.Block
	aesKey    string // the EncodingAESKey, for silenceper's EncryptMsg
	receiveID string
}

// NewCrypter returns a Crypter for the callback token and the 43-character
// EncodingAESKey configured in the WeCom admin console. receiveID is the id
// WeCom appends to every plaintext: AIBotReceiveID ("") for the AI bot, the
// corp id for a self-built app.
func NewCrypter(token, encodingAESKey, receiveID string) (*Crypter, error) {
	if token == "" {
		return nil, errors.New("wecom token is empty: set it to the Token shown in the WeCom admin console")
	}
	key, err := DecodeAESKey(encodingAESKey)
	if err != nil {
		return nil, err
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("wecom EncodingAESKey: %w", err)
	}
	return &Crypter{token: token, key: key, block: block, aesKey: encodingAESKey, receiveID: receiveID}, nil
}

// DecodeAESKey checks an EncodingAESKey and returns the 32-byte AES key it
// encodes (base64 of the key with its "=" padding removed).
func DecodeAESKey(encodingAESKey string) ([]byte, error) {
	if len(encodingAESKey) != aesKeyLen {
		return nil, fmt.Errorf("wecom EncodingAESKey has %d characters, want %d: copy it again from the WeCom admin console", len(encodingAESKey), aesKeyLen)
	}
	key, err := base64.StdEncoding.DecodeString(encodingAESKey + "=")
	if err != nil {
		return nil, fmt.Errorf("wecom EncodingAESKey is not base64: %w", err)
	}
	if len(key) != 32 {
		// Unreachable for 43 valid characters, kept so the invariant is local.
		return nil, fmt.Errorf("wecom EncodingAESKey decodes to %d bytes, want 32", len(key))
	}
	return key, nil
}

// ReceiveID is the receive id this Crypter expects and writes.
func (c *Crypter) ReceiveID() string { return c.receiveID }

// Signature is WeCom's msg_signature: the hex sha1 of token, timestamp, nonce
// and the encrypted text, sorted and concatenated.
func (c *Crypter) Signature(timestamp, nonce, encrypted string) string {
	return util.Signature(c.token, timestamp, nonce, encrypted)
}

// Verify checks a msg_signature in constant time. It returns ErrSignature on a
// mismatch; call it before any decryption work.
func (c *Crypter) Verify(signature, timestamp, nonce, encrypted string) error {
	want := c.Signature(timestamp, nonce, encrypted)
	if subtle.ConstantTimeCompare([]byte(signature), []byte(want)) != 1 {
		return ErrSignature
	}
	return nil
}

// Encrypt encrypts msg the way WeCom does, with 16 fresh random bytes, and
// returns the base64 text that goes in an "encrypt" field.
func (c *Crypter) Encrypt(msg []byte) (string, error) {
	var random [randomLen]byte
	if _, err := rand.Read(random[:]); err != nil {
		return "", fmt.Errorf("wecom encrypt: random prefix: %w", err)
	}
	return c.EncryptWithRandom(random[:], msg)
}

// EncryptWithRandom is Encrypt with a caller-chosen 16-byte random prefix. It
// exists for fixed test vectors; everything else should call Encrypt.
func (c *Crypter) EncryptWithRandom(random, msg []byte) (string, error) {
	if len(random) != randomLen {
		return "", fmt.Errorf("wecom encrypt: random prefix has %d bytes, want %d", len(random), randomLen)
	}
	out, err := util.EncryptMsg(random, msg, c.receiveID, c.aesKey)
	if err != nil {
		return "", fmt.Errorf("wecom encrypt: %w", err)
	}
	return string(out), nil
}

// Decrypt opens the base64 text of an "encrypt" field (or an echostr) and
// returns the message inside. Every malformed input yields an error wrapping
// ErrDecrypt; it never panics. silenceper's DecryptMsg is not used because it
// rejects the AI bot's empty receive id.
func (c *Crypter) Decrypt(encrypted string) ([]byte, error) {
	ct, err := base64.StdEncoding.DecodeString(encrypted)
	if err != nil {
		return nil, fmt.Errorf("%w: base64: %v", ErrDecrypt, err)
	}
	if len(ct) == 0 || len(ct)%padBlockSize != 0 {
		return nil, fmt.Errorf("%w: ciphertext is %d bytes, want a non-zero multiple of %d", ErrDecrypt, len(ct), padBlockSize)
	}
	pt := make([]byte, len(ct))
	cipher.NewCBCDecrypter(c.block, c.key[:aes.BlockSize]).CryptBlocks(pt, ct)

	pad := int(pt[len(pt)-1])
	if pad < 1 || pad > padBlockSize {
		return nil, fmt.Errorf("%w: padding byte %d out of range 1..%d", ErrDecrypt, pad, padBlockSize)
	}
	// Constant-time padding check; the signature was verified first, so this is
	// defence in depth rather than the only guard against a padding oracle.
	bad := 0
	for _, b := range pt[len(pt)-pad:] {
		bad |= int(b) ^ pad
	}
	if bad != 0 {
		return nil, fmt.Errorf("%w: padding bytes are not all %d", ErrDecrypt, pad)
	}
	pt = pt[:len(pt)-pad]

	if len(pt) < headerLen {
		return nil, fmt.Errorf("%w: plaintext is %d bytes, shorter than its %d-byte header", ErrDecrypt, len(pt), headerLen)
	}
	n := binary.BigEndian.Uint32(pt[randomLen:headerLen])
	if uint64(n) > uint64(len(pt)-headerLen) {
		return nil, fmt.Errorf("%w: length field %d exceeds the %d bytes that follow", ErrDecrypt, n, len(pt)-headerLen)
	}
	msg := pt[headerLen : headerLen+int(n)]
	rid := pt[headerLen+int(n):]
	if subtle.ConstantTimeCompare(rid, []byte(c.receiveID)) != 1 {
		return nil, fmt.Errorf("%w: receive id is %q, want %q", ErrDecrypt, rid, c.receiveID)
	}
	return msg, nil
}

// PadBlockSize is WeCom's PKCS#7 padding block (32 bytes, not AES's 16).
const PadBlockSize = 32

// WrapBlock returns a copy of c whose AES block is wrap(the block): a way to
// observe decryption (the webhook's tests count the blocks a rejected
// request decrypts, which must be none).
func (c *Crypter) WrapBlock(wrap func(cipher.Block) cipher.Block) *Crypter {
	d := *c
	d.block = wrap(c.block)
	return &d
}
