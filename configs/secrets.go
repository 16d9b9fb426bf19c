package configs

import (
	"fmt"
	"os"
	"strings"
)

// secretFile is one secret key and its _file twin: the path of a file that
// holds the secret, which is how services are handed secrets (compose
// secrets, systemd LoadCredential=, a mounted Kubernetes Secret) rather
// than through an environment that every child could inherit.
type secretFile struct {
	key   string  // e.g. wecom.aibot.token; its twin is key + "_file"
	value *string // the secret itself
	path  string  // the twin's value
}

// secretFiles lists every secret key of c with its twin.
func (c *Config) secretFiles() []secretFile {
	b, a := &c.WeCom.AIBot, &c.WeCom.App
	return []secretFile{
		{"redis.password", &c.Redis.Password, c.Redis.PasswordFile},
		{"wecom.aibot.token", &b.Token, b.TokenFile},
		{"wecom.aibot.encoding_aes_key", &b.EncodingAESKey, b.EncodingAESKeyFile},
		{"wecom.aibot.secret", &b.Secret, b.SecretFile},
		{"wecom.app.secret", &a.Secret, a.SecretFile},
		{"wecom.app.token", &a.Token, a.TokenFile},
		{"wecom.app.encoding_aes_key", &a.EncodingAESKey, a.EncodingAESKeyFile},
	}
}

// readSecretFiles sets each secret whose _file twin is set from that file:
// its content with one trailing newline removed (what `echo` and editors
// add). Setting a secret and its twin both, or a twin naming a file that
// cannot be read or is empty, is a Problem on the twin's key; the secret is
// then left empty.
func readSecretFiles(c *Config) Problems {
	var ps Problems
	for _, s := range c.secretFiles() {
		if s.path == "" {
			continue
		}
		fileKey := s.key + "_file"
		if *s.value != "" {
			ps = append(ps, Problem{fileKey, fmt.Sprintf("is set and so is %s: set one of them (%s names a file holding %s)", s.key, fileKey, s.key)})
			*s.value = ""
			continue
		}
		b, err := os.ReadFile(s.path)
		if err != nil {
			ps = append(ps, Problem{fileKey, fmt.Sprintf("cannot read %s: %v", s.path, rootCause(err))})
			continue
		}
		v := strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r")
		if v == "" {
			ps = append(ps, Problem{fileKey, fmt.Sprintf("%s is empty; it must hold %s", s.path, s.key)})
			continue
		}
		*s.value = v
	}
	return ps
}

// secretOfFileKey returns the secret key whose twin is key, or "".
func secretOfFileKey(key string) string {
	if k, ok := strings.CutSuffix(key, "_file"); ok {
		for _, s := range (&Config{}).secretFiles() {
			if s.key == k {
				return k
			}
		}
	}
	return ""
}
