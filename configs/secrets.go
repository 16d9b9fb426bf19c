package configs

import (
	"fmt"
	"os"
	"sort"
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
		if v, ok := readSecret(fileKey, s.key, s.path, &ps); ok {
			*s.value = v
		}
	}
	return ps
}

// readSecret reads the secret what from the file at path that key names:
// its content less one trailing newline. An unreadable or empty file is a
// Problem on key.
func readSecret(key, what, path string, ps *Problems) (string, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		*ps = append(*ps, Problem{key, fmt.Sprintf("cannot read %s: %v", path, rootCause(err))})
		return "", false
	}
	v := strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r")
	if v == "" {
		*ps = append(*ps, Problem{key, fmt.Sprintf("%s is empty; it must hold %s", path, what)})
		return "", false
	}
	return v, true
}

// readEnvFiles adds agent.codex.env_file and agent.acp.env_file to their
// env maps: each variable's value read from its file, as readSecretFiles
// reads a secret. A name in both maps is a Problem; a name validateAgentEnv
// refuses (a WECODEX_ one) is left to it, and its file never read.
func readEnvFiles(c *Config) Problems {
	var ps Problems
	for _, m := range []struct {
		key   string
		env   *map[string]string
		files map[string]string
	}{
		{"agent.codex.env", &c.Agent.Codex.Env, c.Agent.Codex.EnvFile},
		{"agent.acp.env", &c.Agent.ACP.Env, c.Agent.ACP.EnvFile},
	} {
		names := make([]string, 0, len(m.files))
		for name := range m.files {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			fileKey := m.key + "_file." + name
			if _, bad := agentEnvProblem(m.key+"_file", name); bad != "" {
				continue // validateAgentEnv says why; never read
			}
			if _, set := (*m.env)[name]; set {
				ps = append(ps, Problem{fileKey, fmt.Sprintf("is set and so is %s.%s: set one of them", m.key, name)})
				continue
			}
			if v, ok := readSecret(fileKey, name, m.files[name], &ps); ok {
				if *m.env == nil {
					*m.env = map[string]string{}
				}
				(*m.env)[name] = v
			}
		}
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

// SecretFilePaths maps each _file key that is set (wecom.aibot.token_file,
// agent.codex.env_file.NAME, ...) to the file it names: the files serve
// keeps out of every conversation's sandbox.
func (c *Config) SecretFilePaths() map[string]string {
	out := make(map[string]string)
	for _, s := range c.secretFiles() {
		if s.path != "" {
			out[s.key+"_file"] = s.path
		}
	}
	for key, files := range map[string]map[string]string{"agent.codex.env_file": c.Agent.Codex.EnvFile, "agent.acp.env_file": c.Agent.ACP.EnvFile} {
		for name, path := range files {
			out[key+"."+name] = path
		}
	}
	return out
}

// SecretValues are the secrets c holds, for what must never show them
// (the audit trail scrubs each).
func (c *Config) SecretValues() []string {
	var out []string
	for _, s := range c.secretFiles() {
		if *s.value != "" {
			out = append(out, *s.value)
		}
	}
	return out
}
