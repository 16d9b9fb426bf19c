package wecom

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestPostResponseURL(t *testing.T) {
	var got string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got = r.Header.Get("Content-Type") + " " + string(b)
		switch r.URL.Query().Get("response_code") {
		case "ok":
			io.WriteString(w, `{"errcode":0,"errmsg":"ok"}`)
		case "used":
			io.WriteString(w, `{"errcode":93000,"errmsg":"used"}`)
		default:
			w.WriteHeader(http.StatusBadGateway)
		}
	}))
	defer srv.Close()
	ctx := context.Background()

	if err := PostResponseURL(ctx, testLoopback, srv.Client(), srv.URL+"?response_code=ok", MarkdownMessage("**done**")); err != nil {
		t.Fatal(err)
	}
	if want := `application/json {"msgtype":"markdown","markdown":{"content":"**done**"}}`; got != want {
		t.Fatalf("posted %s, want %s", got, want)
	}

	err := PostResponseURL(ctx, testLoopback, srv.Client(), srv.URL+"?response_code=used", MarkdownMessage("x"))
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Code != 93000 || err.Error() != "post response_url: wecom errcode 93000: used" {
		t.Fatalf("used code: %v", err)
	}
	if err := PostResponseURL(ctx, testLoopback, srv.Client(), srv.URL+"?response_code=x", MarkdownMessage("x")); err == nil || err.Error() != "post response_url: HTTP 502" {
		t.Fatalf("502: %v", err)
	}

	// A transport error must not leak the URL's one-time code.
	srv.Close()
	err = PostResponseURL(ctx, testLoopback, srv.Client(), srv.URL+"?response_code=secret123", MarkdownMessage("x"))
	if err == nil || strings.Contains(err.Error(), "secret123") {
		t.Fatalf("closed server: %v", err)
	}
}

// testLoopback allows the tests' fakes, which listen on 127.0.0.1.
var testLoopback = func() *AllowedHosts {
	h, err := NewAllowedHosts("127.0.0.1")
	if err != nil {
		panic(err)
	}
	return h
}()
