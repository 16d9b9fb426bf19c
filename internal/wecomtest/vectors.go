package wecomtest

import (
	"bufio"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"strings"
)

// Vector is one row of bot/wecom/testdata/vectors.tsv: a WeCom ciphertext
// and signature made with openssl and sha1sum (see that directory's
// README), ground truth that neither the bot's crypto nor this fake's wrote.
type Vector struct {
	Name, Token, EncodingAESKey, ReceiveID string
	Random                                 []byte // the 16 "random" bytes
	Timestamp, Nonce                       string
	Message                                []byte
	Encrypt, Signature                     string
}

// ReadVectors parses vectors.tsv: tab-separated, ten columns, lines
// starting with # are comments.
func ReadVectors(r io.Reader) ([]Vector, error) {
	var vs []Vector
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		c := strings.Split(line, "\t")
		if len(c) != 10 {
			return nil, fmt.Errorf("vector line %d has %d columns, want 10", n, len(c))
		}
		random, err := hex.DecodeString(c[4])
		if err != nil {
			return nil, fmt.Errorf("vector line %d: random_hex: %w", n, err)
		}
		msg, err := base64.StdEncoding.DecodeString(c[7])
		if err != nil {
			return nil, fmt.Errorf("vector line %d: message_base64: %w", n, err)
		}
		vs = append(vs, Vector{c[0], c[1], c[2], c[3], random, c[5], c[6], msg, c[8], c[9]})
	}
	return vs, sc.Err()
}
