package wecom_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/bot/wecom"
)

func hosts(t *testing.T, entries ...string) *wecom.AllowedHosts {
	t.Helper()
	h, err := wecom.NewAllowedHosts(entries...)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestAllowedHostsCheckURL(t *testing.T) {
	h := hosts(t, "qyapi.weixin.qq.com", "*.myqcloud.com", "127.0.0.1", "localhost", "10.1.0.0/16")
	for _, tc := range []struct {
		url string
		ok  bool
	}{
		{"https://qyapi.weixin.qq.com/cgi-bin/aibot/response?response_code=x", true},
		{"https://QYAPI.weixin.qq.com./x", true},
		{"http://qyapi.weixin.qq.com/x", false}, // plain http only to loopback
		{"https://ww-aibot-img-1.cos.ap-guangzhou.myqcloud.com/a", true},
		{"https://myqcloud.com/a", false}, // the wildcard is for the names under it
		{"https://qyapi.weixin.qq.com.evil.example/x", false},
		{"https://evil.example/x", false},
		{"http://127.0.0.1:8080/x", true},
		{"http://localhost:8080/x", true},
		{"http://127.0.0.2/x", false}, // another loopback address, not listed
		{"https://10.1.2.3/x", true},
		{"http://10.1.2.3/x", false},
		{"https://10.2.0.1/x", false},
		{"https://169.254.169.254/latest/meta-data", false},
		{"ftp://qyapi.weixin.qq.com/x", false},
		{"file:///etc/passwd", false},
	} {
		u, err := url.Parse(tc.url)
		if err != nil {
			t.Fatal(err)
		}
		err = h.CheckURL(u)
		if (err == nil) != tc.ok {
			t.Errorf("%s: %v, want allowed %v", tc.url, err, tc.ok)
		}
		if err != nil && (!errors.Is(err, wecom.ErrHostNotAllowed) || strings.Contains(err.Error(), u.Path) && u.Path != "") {
			t.Errorf("%s: error %q should be ErrHostNotAllowed and name no path", tc.url, err)
		}
	}
	for _, bad := range []string{"https://qyapi.weixin.qq.com", "qyapi.weixin.qq.com:443", "a/b", "", "*.", "bad host"} {
		if _, err := wecom.NewAllowedHosts(bad); err == nil {
			t.Errorf("entry %q accepted", bad)
		}
	}
}

// listener is a local server that counts what it is asked and answers
// with handler.
func listener(t *testing.T, handler http.HandlerFunc) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var asked atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		handler(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &asked
}

func serveBytes(b string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(b)) }
}

const notFetched = "The file could not be fetched: its address is not one wecodex may download from."

// A media URL at a local listener that wecom.allowed_hosts does not list
// (the default hosts) is not asked at all, and the attachment says why.
func TestFetchRefusesAHostNotAllowed(t *testing.T) {
	srv, asked := listener(t, serveBytes("secret"))
	for _, f := range []wecom.Fetcher{
		{}, // the default: WeCom's hosts only
		{Hosts: hosts(t, "qyapi.weixin.qq.com")},
		{Hosts: hosts(t, "qyapi.weixin.qq.com"), Client: http.DefaultClient}, // a client of the caller's too
	} {
		a := f.Fetch(context.Background(), "m1", []wecom.MediaRef{{Kind: bot.AttachFile, URL: srv.URL + "/f?sign=x"}})
		if len(a) != 1 || a[0].Problem != notFetched || a[0].Data != nil {
			t.Fatalf("attachment %+v, want problem %q", a, notFetched)
		}
	}
	if n := asked.Load(); n != 0 {
		t.Fatalf("the listener was asked %d times, want never", n)
	}
}

// A name that is listed but resolves to a loopback or private address is
// refused when the connection is dialed: the address must be listed itself.
func TestFetchChecksTheDialedAddress(t *testing.T) {
	srv, asked := listener(t, serveBytes("secret"))
	u := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)
	a := wecom.Fetcher{Hosts: hosts(t, "localhost")}.Fetch(context.Background(), "m1", []wecom.MediaRef{{Kind: bot.AttachFile, URL: u + "/f"}})
	if a[0].Problem != notFetched {
		t.Fatalf("attachment %+v, want problem %q", a[0], notFetched)
	}
	if n := asked.Load(); n != 0 {
		t.Fatalf("the listener was asked %d times, want never", n)
	}
	// With its address listed, the same name is fetched.
	a = wecom.Fetcher{Hosts: hosts(t, "localhost", "127.0.0.1")}.Fetch(context.Background(), "m1", []wecom.MediaRef{{Kind: bot.AttachFile, URL: u + "/f"}})
	if a[0].Problem != "" || string(a[0].Data) != "secret" {
		t.Fatalf("attachment %+v, want the file", a[0])
	}
}

// A redirect is checked like the first URL: one to a private or
// link-local address, to plain http elsewhere, or to a host not listed is
// refused, and nothing is asked there.
func TestFetchChecksRedirects(t *testing.T) {
	target, targetAsked := listener(t, serveBytes("inside"))
	for _, to := range []string{
		"http://10.0.0.7/admin",
		"https://169.254.169.254/latest/meta-data/",
		"http://[fd00::1]/x",
		strings.Replace(target.URL, "127.0.0.1", "localhost", 1) + "/x", // a loopback name not listed
		"https://evil.example/x",
	} {
		srv, _ := listener(t, func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, to, http.StatusFound)
		})
		f := wecom.Fetcher{Hosts: hosts(t, "127.0.0.1")}
		a := f.Fetch(context.Background(), "m1", []wecom.MediaRef{{Kind: bot.AttachFile, URL: srv.URL + "/f"}})
		if a[0].Problem != notFetched {
			t.Errorf("redirect to %s: attachment %+v, want problem %q", to, a[0], notFetched)
		}
	}
	if n := targetAsked.Load(); n != 0 {
		t.Fatalf("the redirect target was asked %d times, want never", n)
	}
	// A redirect to a listed host is followed.
	srv, _ := listener(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL+"/x", http.StatusFound)
	})
	a := wecom.Fetcher{Hosts: hosts(t, "127.0.0.1")}.Fetch(context.Background(), "m1", []wecom.MediaRef{{Kind: bot.AttachFile, URL: srv.URL + "/f"}})
	if a[0].Problem != "" || string(a[0].Data) != "inside" {
		t.Fatalf("redirect to a listed host: %+v", a[0])
	}
}

// A message brings at most MaxFiles files and MaxBytes together: the rest
// are not asked for, and each says why.
func TestFetchCapsFilesAndBytesPerMessage(t *testing.T) {
	srv, asked := listener(t, serveBytes(strings.Repeat("x", 400)))
	refs := make([]wecom.MediaRef, 12)
	for i := range refs {
		refs[i] = wecom.MediaRef{Kind: bot.AttachFile, URL: srv.URL + "/f"}
	}
	got := wecom.Fetcher{Hosts: hosts(t, "127.0.0.1")}.Fetch(context.Background(), "m", refs)
	for i, a := range got {
		want := ""
		if i >= 10 {
			want = "The file was not downloaded: a message brings at most 10 files."
		}
		if a.Problem != want {
			t.Errorf("file %d: problem %q, want %q", i+1, a.Problem, want)
		}
	}
	if n := asked.Load(); n != 10 {
		t.Fatalf("asked %d times, want 10", n)
	}

	asked.Store(0)
	got = wecom.Fetcher{Hosts: hosts(t, "127.0.0.1"), MaxBytes: 1000}.Fetch(context.Background(), "m", refs[:4])
	const together = "The file was not downloaded: the message's files passed the 1000-byte limit together."
	for i, want := range []string{"", "", together, together} {
		if got[i].Problem != want {
			t.Errorf("file %d: problem %q, want %q", i+1, got[i].Problem, want)
		}
	}
	// The third and fourth are each stopped at what the first two left (a
	// file that does not fit uses none of it, so a smaller one still could).
	if n := asked.Load(); n != 4 {
		t.Fatalf("asked %d times, want 4", n)
	}
}

// response_url posts go only where fetches may: a listener not listed is
// asked nothing.
func TestPostResponseURLRefusesAHostNotAllowed(t *testing.T) {
	srv, asked := listener(t, serveBytes(`{"errcode":0}`))
	for _, h := range []*wecom.AllowedHosts{nil, hosts(t, "qyapi.weixin.qq.com")} {
		err := wecom.PostResponseURL(context.Background(), h, nil, srv.URL+"/cgi-bin/aibot/response?response_code=RC", wecom.MarkdownMessage("x"))
		if !errors.Is(err, wecom.ErrHostNotAllowed) || strings.Contains(err.Error(), "RC") {
			t.Fatalf("post: %v, want ErrHostNotAllowed without the response code", err)
		}
	}
	redirect, _ := listener(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://192.168.1.1/x", http.StatusTemporaryRedirect)
	})
	err := wecom.PostResponseURL(context.Background(), hosts(t, "127.0.0.1"), nil, redirect.URL+"/r", wecom.MarkdownMessage("x"))
	if !errors.Is(err, wecom.ErrHostNotAllowed) {
		t.Fatalf("post redirected to a private address: %v", err)
	}
	if n := asked.Load(); n != 0 {
		t.Fatalf("the listener was asked %d times, want never", n)
	}
}
