package configs

import (
	"fmt"
	"net/netip"
	"strings"
)

// DefaultAllowedHosts is wecom.allowed_hosts's default
// (wecom.DefaultAllowedHosts): WeCom's API host, which serves response_url
// and the app's media, and the bucket the AI bot's media URLs point at.
func DefaultAllowedHosts() []string {
	return []string{"qyapi.weixin.qq.com", "ww-aibot-img-1258476243.cos.ap-guangzhou.myqcloud.com"}
}

// validateAllowedHosts checks wecom.allowed_hosts: each entry is a host name,
// *.domain, an IP address or a CIDR prefix (bot/wecom.AllowedHosts gives
// them their meaning). A URL, a port or a path is refused rather than
// guessed at: an entry that matches nothing would silently refuse WeCom's
// files, one that matches too much would let a message reach inside the
// network.
func validateAllowedHosts(hosts []string, add func(key, format string, args ...any)) {
	if len(hosts) == 0 {
		add("wecom.allowed_hosts", "must list at least one host; its default is %s (WeCom's API and media hosts)", strings.Join(DefaultAllowedHosts(), ", "))
		return
	}
	for i, h := range hosts {
		if !validAllowedHost(h) {
			add(fmt.Sprintf("wecom.allowed_hosts[%d]", i),
				"%q is not a host name (no scheme, port or path), *.domain, an IP address or a CIDR prefix like 10.0.0.0/8", h)
		}
	}
}

func validAllowedHost(entry string) bool {
	e := strings.ToLower(strings.TrimSpace(entry))
	e = strings.TrimSuffix(strings.TrimPrefix(e, "["), "]")
	if strings.Contains(e, "/") {
		_, err := netip.ParsePrefix(e)
		return err == nil
	}
	if _, err := netip.ParseAddr(e); err == nil {
		return true
	}
	name := strings.TrimPrefix(e, "*.")
	if name == "" || len(name) > 253 || strings.HasPrefix(name, ".") || strings.HasSuffix(name, ".") || strings.Contains(name, "..") {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '.' || r == '_') {
			return false
		}
	}
	return true
}
