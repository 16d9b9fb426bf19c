package playground

import (
	"bufio"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func newTestPlayground(t *testing.T) *Playground {
	t.Helper()
	p, err := New(Config{
		Endpoint: "http://127.0.0.1:1/wecom/aibot", Token: "tok",
		EncodingAESKey: "DDkUDeGAyis6gofMlDlvJjh514XJ0TXoZKXQrQL8lnA", User: "playground",
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
		name, remote, host, ctype, origin, fetchSite, body string
		want                                               int
	}{
		{"not loopback", "192.0.2.7:5000", "", "application/json", "", "", `{"text":"hi"}`, http.StatusForbidden},
		// DNS rebinding: a loopback peer (a local proxy, or a rebound name)
		// under a foreign Host.
		{"foreign host", "127.0.0.1:5000", "rebind.example:8080", "application/json", "", "", `{"text":"hi"}`, http.StatusMisdirectedRequest},
		{"lan address as host", "127.0.0.1:5000", "192.0.2.1:8080", "application/json", "", "", `{"text":"hi"}`, http.StatusMisdirectedRequest},
		{"form post", "127.0.0.1:5000", "", "application/x-www-form-urlencoded", "", "", `text=hi`, http.StatusUnsupportedMediaType},
		{"cross origin", "127.0.0.1:5000", "", "application/json", "http://evil.example", "", `{"text":"hi"}`, http.StatusForbidden},
		{"cross site fetch", "127.0.0.1:5000", "", "application/json", "", "cross-site", `{"text":"hi"}`, http.StatusForbidden},
		{"other loopback origin", "127.0.0.1:5000", "", "application/json", "http://localhost:9999", "", `{"text":"hi"}`, http.StatusForbidden},
		{"empty", "127.0.0.1:5000", "", "application/json", "", "", `{"text":"  "}`, http.StatusBadRequest},
		{"bad json", "[::1]:5000", "[::1]:8080", "application/json", "", "", `{`, http.StatusBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:8080/playground/send", strings.NewReader(tt.body))
			r.RemoteAddr = tt.remote
			if tt.host != "" {
				r.Host = tt.host
			}
			r.Header.Set("Content-Type", tt.ctype)
			if tt.origin != "" {
				r.Header.Set("Origin", tt.origin)
			}
			if tt.fetchSite != "" {
				r.Header.Set("Sec-Fetch-Site", tt.fetchSite)
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

// What a browser on the page itself sends is accepted, under every loopback
// name.
func TestSameOriginSend(t *testing.T) {
	for _, host := range []string{"127.0.0.1:8080", "localhost:8080", "[::1]:8080", "localhost"} {
		t.Run(host, func(t *testing.T) {
			p := newTestPlayground(t)
			r := httptest.NewRequest(http.MethodPost, "http://"+host+"/playground/send", strings.NewReader(`{"text":"hi"}`))
			r.RemoteAddr = "127.0.0.1:5000"
			r.Header.Set("Content-Type", "application/json")
			r.Header.Set("Origin", "http://"+host)
			r.Header.Set("Sec-Fetch-Site", "same-origin")
			w := httptest.NewRecorder()
			p.Handler().ServeHTTP(w, r)
			if w.Code != http.StatusAccepted || !strings.HasPrefix(w.Body.String(), `{"id":"PG`) {
				t.Fatalf("status = %d (%s), want 202 with the card's id", w.Code, w.Body.String())
			}
			if views, _, _ := p.board.since(0); len(views) != 1 || views[0].Prompt != "hi" {
				t.Fatalf("cards = %+v, want the one sent", views)
			}
		})
	}
}

// The page's GETs are refused under a foreign Host too: a rebound page could
// otherwise read the cards.
func TestForeignHostGets(t *testing.T) {
	h := newTestPlayground(t).Handler()
	for _, path := range []string{"/playground", "/playground/events", "/playground/static/app.js"} {
		// Cancelled up front: were the event stream served, it would end
		// at once instead of holding the test.
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		r := httptest.NewRequestWithContext(ctx, http.MethodGet, "http://rebind.example:8080"+path, nil)
		r.RemoteAddr = "127.0.0.1:5000"
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		want := "the playground only answers to http://127.0.0.1, localhost or [::1], not \"rebind.example:8080\"\n"
		if w.Code != http.StatusMisdirectedRequest || w.Body.String() != want {
			t.Errorf("GET %s = %d %q, want 421 %q", path, w.Code, w.Body.String(), want)
		}
	}
}

// The event stream lives past the server's read and write timeouts (which
// wecodex serve sets): a card made after both deadlines still arrives.
func TestEventStreamOutlivesServerTimeouts(t *testing.T) {
	p := newTestPlayground(t)
	srv := httptest.NewUnstartedServer(p.Handler())
	const timeout = 100 * time.Millisecond
	srv.Config.ReadTimeout, srv.Config.WriteTimeout = timeout, timeout
	srv.Start()
	defer srv.Close()

	resp, err := http.Get(srv.URL + "/playground/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	events := bufio.NewReader(resp.Body)
	if ev := readEvent(t, events); ev != "hello" {
		t.Fatalf("first event %q, want hello", ev)
	}
	// The deadlines were set when the request arrived, before hello came.
	<-time.After(3 * timeout)
	p.board.add("m1", "after the deadlines")
	if ev := readEvent(t, events); ev != "card" {
		t.Fatalf("event after the deadlines %q, want card", ev)
	}
}

// readEvent returns the name of the next server-sent event, skipping
// keep-alive comments.
func readEvent(t *testing.T, r *bufio.Reader) string {
	t.Helper()
	name := ""
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("event stream ended: %v", err)
		}
		line = strings.TrimRight(line, "\n")
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case line == "" && name != "":
			return name
		}
	}
}
