package wecom

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"time"
)

// A callback names the URLs wecodex fetches a message's files from and posts
// its late answer to (response_url). The callback is signed, but a URL in it
// is still a request this server makes on a message's behalf: without a
// fence, a forged or replayed payload, a hostile redirect or a name that
// resolves inside the network would make wecodex fetch from the metadata
// service or an internal admin page. So every such request goes through an
// AllowedHosts: the URL's host must be listed, the scheme must be https
// (plain http only to a listed loopback host, how the tests' and the
// playground's fakes serve), every redirect is checked again, and the
// address actually dialed must be public unless it is listed itself.

// DefaultAllowedHosts is wecom.allowed_hosts's default: WeCom's API host,
// which serves response_url and the app's media/get, and the COS bucket the
// AI bot's media URLs point at (seen in real callbacks: image.url is
// https://ww-aibot-img-1258476243.cos.ap-guangzhou.myqcloud.com/…?sign=…).
var DefaultAllowedHosts = []string{
	"qyapi.weixin.qq.com",
	"ww-aibot-img-1258476243.cos.ap-guangzhou.myqcloud.com",
}

// ErrHostNotAllowed is a request to a host, scheme or address that
// wecom.allowed_hosts does not allow.
var ErrHostNotAllowed = errors.New("not in wecom.allowed_hosts")

// maxRedirects bounds the redirects one request follows.
const maxRedirects = 5

// AllowedHosts is the parsed wecom.allowed_hosts. An entry is a host name
// (qyapi.weixin.qq.com), a wildcard for the names under a domain
// (*.myqcloud.com), an IP address (127.0.0.1, ::1) or a CIDR prefix
// (10.0.0.0/8). A name allows the URLs that name it, dialed at public
// addresses only; an address or prefix allows URLs that name it and allows
// dialing it, which is how a private or loopback address is let in.
type AllowedHosts struct {
	names    map[string]bool
	suffixes []string // ".example.com" for *.example.com
	prefixes []netip.Prefix

	// transport is shared by every Client, so connections are reused.
	transportOnce sync.Once
	transport     http.RoundTripper
}

// NewAllowedHosts parses entries; an error names the first bad one.
func NewAllowedHosts(entries ...string) (*AllowedHosts, error) {
	a := &AllowedHosts{names: map[string]bool{}}
	for _, e := range entries {
		if err := a.add(e); err != nil {
			return nil, err
		}
	}
	return a, nil
}

func (a *AllowedHosts) add(entry string) error {
	e := strings.ToLower(strings.TrimSpace(entry))
	e = strings.TrimSuffix(strings.TrimPrefix(e, "["), "]")
	if strings.Contains(e, "/") {
		p, err := netip.ParsePrefix(e)
		if err != nil {
			return fmt.Errorf("allowed host %q: not a CIDR prefix like 10.0.0.0/8", entry)
		}
		a.prefixes = append(a.prefixes, p.Masked())
		return nil
	}
	if ip, err := netip.ParseAddr(e); err == nil {
		ip = ip.Unmap()
		a.prefixes = append(a.prefixes, netip.PrefixFrom(ip, ip.BitLen()))
		return nil
	}
	name, wild := strings.CutPrefix(e, "*.")
	if !validHostName(name) {
		return fmt.Errorf("allowed host %q: give a host name (no scheme, port or path), *.domain, an IP address or a CIDR prefix", entry)
	}
	if wild {
		a.suffixes = append(a.suffixes, "."+name)
	} else {
		a.names[name] = true
	}
	return nil
}

func validHostName(s string) bool {
	if s == "" || len(s) > 253 || strings.HasPrefix(s, ".") || strings.HasSuffix(s, ".") || strings.Contains(s, "..") {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '.' || r == '_') {
			return false
		}
	}
	return true
}

// CheckURL says whether a request to u may be made. The error names the
// host, never the URL: its query is a credential.
func (a *AllowedHosts) CheckURL(u *url.URL) error {
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if host == "" {
		return fmt.Errorf("%w: the URL names no host", ErrHostNotAllowed)
	}
	if !a.hostListed(host) {
		return fmt.Errorf("%w: host %s", ErrHostNotAllowed, host)
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		return nil
	case "http":
		if loopbackHost(host) {
			return nil
		}
		return fmt.Errorf("%w: plain http to %s (https only, http only to a listed loopback host)", ErrHostNotAllowed, host)
	}
	return fmt.Errorf("%w: scheme %q", ErrHostNotAllowed, u.Scheme)
}

func (a *AllowedHosts) hostListed(host string) bool {
	if ip, err := netip.ParseAddr(host); err == nil {
		return a.addrListed(ip)
	}
	if a.names[host] {
		return true
	}
	for _, s := range a.suffixes {
		if strings.HasSuffix(host, s) {
			return true
		}
	}
	return false
}

func (a *AllowedHosts) addrListed(ip netip.Addr) bool {
	ip = ip.Unmap()
	for _, p := range a.prefixes {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// loopbackHost is a host that names this machine.
func loopbackHost(host string) bool {
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// checkDial runs on every connection before it is made, with the address
// the name resolved to: a name that passed CheckURL but resolves inside the
// network (or rebinds to it) is refused here.
func (a *AllowedHosts) checkDial(_, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return fmt.Errorf("%w: address %q", ErrHostNotAllowed, address)
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return fmt.Errorf("%w: address %q", ErrHostNotAllowed, address)
	}
	ip = ip.Unmap()
	if publicAddr(ip) || a.addrListed(ip) {
		return nil
	}
	return fmt.Errorf("%w: private address %s", ErrHostNotAllowed, ip)
}

// nonPublic are the special ranges netip has no predicate for: shared
// address space (carrier NAT), "this network", IETF protocol assignments,
// benchmarking, reserved, and NAT64, which embeds any IPv4 address.
var nonPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("64:ff9b::/96"),
	netip.MustParsePrefix("64:ff9b:1::/48"),
}

// publicAddr reports whether ip is a public unicast address.
func publicAddr(ip netip.Addr) bool {
	if !ip.IsValid() || ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified() {
		return false
	}
	for _, p := range nonPublic {
		if p.Contains(ip) {
			return false
		}
	}
	return true
}

// Client is an HTTP client bounded by timeout whose every request, redirect
// and dialed address is checked against a. A proxy from the environment
// (HTTPS_PROXY) is dialed like any address: one on a private address must
// be listed.
func (a *AllowedHosts) Client(timeout time.Duration) *http.Client {
	a.transportOnce.Do(func() {
		d := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second, Control: a.checkDial}
		a.transport = checkedTransport{hosts: a, next: &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           d.DialContext,
			ForceAttemptHTTP2:     true,
			MaxIdleConns:          16,
			IdleConnTimeout:       90 * time.Second,
			TLSHandshakeTimeout:   10 * time.Second,
			ExpectContinueTimeout: time.Second,
		}}
	})
	return &http.Client{
		Timeout:   timeout,
		Transport: a.transport,
		CheckRedirect: func(_ *http.Request, via []*http.Request) error {
			if len(via) >= maxRedirects {
				return fmt.Errorf("stopped after %d redirects", maxRedirects)
			}
			return nil // the transport checks the redirect's URL
		},
	}
}

// checkedTransport refuses a request, first or redirected, whose URL a
// does not allow, before anything is dialed.
type checkedTransport struct {
	hosts *AllowedHosts
	next  http.RoundTripper
}

func (t checkedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if err := t.hosts.CheckURL(r.URL); err != nil {
		if r.Body != nil {
			_ = r.Body.Close()
		}
		return nil, err
	}
	return t.next.RoundTrip(r)
}

// defaultHosts is DefaultAllowedHosts parsed, for a Fetcher or a post given
// no AllowedHosts of their own.
var defaultHosts = func() *AllowedHosts {
	a, err := NewAllowedHosts(DefaultAllowedHosts...)
	if err != nil {
		panic(err)
	}
	return a
}()

// hostsOr is a, or the default hosts when a is nil.
func hostsOr(a *AllowedHosts) *AllowedHosts {
	if a == nil {
		return defaultHosts
	}
	return a
}
