package projects

import "os"

// minimalEnv is git's environment when Options.Env is nil: enough to find
// programs and the home directory (its credential helpers, ssh keys), none
// of wecodex's secrets.
func minimalEnv() []string {
	var env []string
	for _, k := range []string{"PATH", "HOME", "LANG", "LC_ALL", "SSL_CERT_FILE", "SSL_CERT_DIR", "HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY", "https_proxy", "http_proxy", "no_proxy"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}
