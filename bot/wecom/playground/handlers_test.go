package playground

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func newTestPlayground(t *testing.T) *Playground {
	t.Helper()
	p, err := New(Config{
		Endpoint: "http://127.0.0.1:1/wecom/aibot", Token: "tok",
		EncodingAESKey: "wecodexLocalPlaygroundKeyNotASecretNotProd0", User: "playground",
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Error(err)
		}
	})
	return p
}

func TestSendChecks(t *testing.T) {
	p := newTestPlayground(t)
	h := p.Handler()
	tests := []struct {
		name, remote, ctype, origin, body string
		want                              int
	}{
		{"not loopback", "192.0.2.7:5000", "application/json", "", `{"text":"hi"}`, http.StatusForbidden},
		{"form post", "127.0.0.1:5000", "application/x-www-form-urlencoded", "", `text=hi`, http.StatusUnsupportedMediaType},
		{"cross origin", "127.0.0.1:5000", "application/json", "http://evil.example", `{"text":"hi"}`, http.StatusForbidden},
		{"empty", "127.0.0.1:5000", "application/json", "", `{"text":"  "}`, http.StatusBadRequest},
		{"bad json", "[::1]:5000", "application/json", "", `{`, http.StatusBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:8080/playground/send", strings.NewReader(tt.body))
			r.RemoteAddr = tt.remote
			r.Header.Set("Content-Type", tt.ctype)
			if tt.origin != "" {
				r.Header.Set("Origin", tt.origin)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != tt.want {
				t.Fatalf("status = %d (%s), want %d", w.Code, w.Body.String(), tt.want)
			}
		})
	}
	if views, _, _ := p.board.since(0); len(views) != 0 {
		t.Fatalf("a refused send made cards: %+v", views)
	}
}

func TestPageAndAssets(t *testing.T) {
	h := newTestPlayground(t).Handler()
	for path, want := range map[string]string{
		"/playground":                `data-testid="composer"`,
		"/playground/":               `data-testid="send"`,
		"/playground/static/app.js":  `new EventSource("/playground/events")`,
		"/playground/static/app.css": ".card .fold",
	} {
		r := httptest.NewRequest(http.MethodGet, "http://127.0.0.1:8080"+path, nil)
		r.RemoteAddr = "127.0.0.1:5000"
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), want) {
			t.Errorf("GET %s = %d, body lacks %q", path, w.Code, want)
		}
	}
}
