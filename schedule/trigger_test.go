package schedule_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wecodex/wecodex/internal/testenv"
	"github.com/wecodex/wecodex/schedule"
	"github.com/wecodex/wecodex/store"
)

type turns struct {
	mu sync.Mutex
	t  []schedule.Turn
}

func (s *turns) Start(_ context.Context, t schedule.Turn) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.t = append(s.t, t)
	return nil
}

type results struct {
	mu sync.Mutex
	r  []string
}

func (s *results) TriggerRequest(name, result string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.r = append(s.r, name+" "+result)
}

func TestHooks(t *testing.T) {
	db := testenv.OpenStore(t, testenv.Prefix(t, "hooks"))
	now := time.Unix(1_800_000_000, 0)
	started, res, aud := &turns{}, &results{}, &counts{}
	secret := []byte("hook-secret")
	h := schedule.NewHooks(schedule.HooksConfig{
		Triggers: []schedule.Trigger{{Name: "ci-failed", Secret: secret,
			Turn: schedule.Turn{Conversation: "group:wrkChat", Prompt: "CI failed. Explain the log."}}},
		Replays: store.NewSchedules(db), Starter: started, Observer: res, Auditor: aud, Log: slog.New(slog.DiscardHandler),
		Now: func() time.Time { return now },
	})
	mux := http.NewServeMux()
	mux.Handle("POST /hooks/{name}", h)
	post := func(name, ts, sig string, body []byte) int {
		r := httptest.NewRequest(http.MethodPost, "/hooks/"+name, bytes.NewReader(body))
		if ts != "" {
			r.Header.Set(schedule.HeaderTimestamp, ts)
		}
		if sig != "" {
			r.Header.Set(schedule.HeaderSignature, sig)
		}
		w := httptest.NewRecorder()
		mux.ServeHTTP(w, r)
		return w.Code
	}
	ts := strconv.FormatInt(now.Unix(), 10)
	body := []byte(`{"job":"test","log":"FAIL: TestX"}`)
	good := schedule.Sign(secret, ts, body)

	if got := post("ci-failed", ts, good, body); got != http.StatusAccepted {
		t.Fatalf("signed POST: %d, want 202", got)
	}
	want := "CI failed. Explain the log.\n\n```\n" + string(body) + "\n```"
	if len(started.t) != 1 || started.t[0].Prompt != want || started.t[0].Conversation != "group:wrkChat" ||
		!strings.HasPrefix(started.t[0].ID, "trigger:ci-failed:") {
		t.Fatalf("started %+v, want one turn with prompt %q", started.t, want)
	}
	old := strconv.FormatInt(now.Add(-6*time.Minute).Unix(), 10)
	for _, c := range []struct {
		what, ts, sig string
		body          []byte
		want          int
	}{
		{"replayed signature", ts, good, body, http.StatusUnauthorized},
		{"bad signature", ts, schedule.Sign([]byte("other"), ts, body), body, http.StatusUnauthorized},
		{"body changed", ts, good, append(body, ' '), http.StatusUnauthorized},
		{"old timestamp", old, schedule.Sign(secret, old, body), body, http.StatusUnauthorized},
		{"no signature", ts, "", body, http.StatusUnauthorized},
		{"no timestamp", "", good, body, http.StatusUnauthorized},
	} {
		if got := post("ci-failed", c.ts, c.sig, c.body); got != c.want {
			t.Errorf("%s: %d, want %d", c.what, got, c.want)
		}
	}
	if got := post("nope", ts, good, body); got != http.StatusUnauthorized {
		t.Errorf("unknown trigger: %d, want 401, the answer an unsigned request to a trigger gets", got)
	}
	answer := func(name string) string {
		w := httptest.NewRecorder()
		mux.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/hooks/"+name, bytes.NewReader(body)))
		return fmt.Sprint(w.Code, " ", w.Body.String())
	}
	if unknown, unsigned := answer("nope"), answer("ci-failed"); unknown != unsigned {
		t.Errorf("unknown trigger answered %q, an unsigned request to ci-failed %q: want the same, so names cannot be probed", unknown, unsigned)
	}
	if len(started.t) != 1 {
		t.Fatalf("refused requests started turns: %+v", started.t[1:])
	}
	wantRes := []string{"ci-failed started", "ci-failed replayed", "ci-failed unsigned", "ci-failed unsigned",
		"ci-failed unsigned", "ci-failed unsigned", "ci-failed unsigned", "ci-failed unsigned"}
	if fmt.Sprint(res.r) != fmt.Sprint(wantRes) {
		t.Fatalf("results %q, want %q", res.r, wantRes)
	}

	// The signed requests are audited, the unsigned ones (anyone's) not.
	id := started.t[0].ID
	wantAudits := []string{
		"trigger ci-failed 1800000000 started user=wecodex-trigger-ci-failed conv=group:wrkChat msgid=" + id,
		"trigger ci-failed 1800000000 replayed user=wecodex-trigger-ci-failed conv=group:wrkChat msgid=" + id,
	}
	if !reflect.DeepEqual(aud.audits, wantAudits) {
		t.Fatalf("audit records:\n got %q\nwant %q", aud.audits, wantAudits)
	}

	// A 1 MiB body is cut to max_body (64 KiB) with the note.
	big := bytes.Repeat([]byte("0123456789abcde\n"), 1<<16)
	ts2 := strconv.FormatInt(now.Unix()+1, 10)
	if got := post("ci-failed", ts2, schedule.Sign(secret, ts2, big), big); got != http.StatusAccepted {
		t.Fatalf("1 MiB POST: %d", got)
	}
	wantBig := "CI failed. Explain the log.\n\n```\n" + string(big[:64<<10]) + "```\n\n" +
		"(The request body was 1048576 bytes; only its first 65536 are shown above.)"
	if p := started.t[1].Prompt; p != wantBig {
		t.Fatalf("1 MiB prompt: %d bytes ending %q, want %d bytes", len(p), p[len(p)-120:], len(wantBig))
	}
}

func TestTriggerPromptFence(t *testing.T) {
	got := schedule.TriggerPrompt("look", []byte("a\n```\nb"), 100)
	if want := "look\n\n````\na\n```\nb\n````"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	// Cut on a character boundary: 你 is 3 bytes.
	got = schedule.TriggerPrompt("p", []byte("你好"), 4)
	if want := "p\n\n```\n你\n```\n\n(The request body was 6 bytes; only its first 3 are shown above.)"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}
