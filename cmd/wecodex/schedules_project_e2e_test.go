package main

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/wecomtest"
	"github.com/wecodex/wecodex/schedule"
)

// A trigger's own project is its turn's: the model request comes from
// that project's directory with its instructions, while a trigger without
// one works in the project the conversation resolves to. The
// conversation's own session is kept: its next turn continues it, with the
// earlier prompt in its history and nothing of the project's turn.
func TestE2ETriggerProjectIsItsTurns(t *testing.T) {
	e := newE2E(t, sm.ScriptFunc(func(*sm.Request) (sm.Response, error) {
		return sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Done.")), nil
	}))
	api := wecomtest.NewAppAPI(wecomtest.AppAPIOptions{CorpID: e2eCorp, Secret: e2eAppSecret, AgentID: e2eAgent})
	t.Cleanup(api.Close)
	misc, ci := t.TempDir(), t.TempDir()
	secretFile := filepath.Join(t.TempDir(), "hook")
	secret := []byte("e2e-hook-secret")
	if err := os.WriteFile(secretFile, secret, 0o600); err != nil {
		t.Fatal(err)
	}
	e.extra = fmt.Sprintf(`projects:
  misc:
    path: %q
    default: true
    instructions: "You work on misc."
  ci:
    path: %q
    instructions: "You work on CI."
triggers:
  plain:
    secret_file: %s
    conversation: app:alice
    prompt: Look at this.
  ci:
    secret_file: %s
    conversation: app:alice
    prompt: CI failed.
    project: ci
`, misc, ci, secretFile, secretFile)
	cfg := appConfig(t, e, api)
	ctx := within(t, 3*time.Minute)
	a := serveWithEnv(t, cfg, e.serveEnv(), e.urls)
	answers := 0
	fire := func(name, body string) {
		t.Helper()
		ts := strconv.FormatInt(time.Now().Unix(), 10)
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, a.base+"/hooks/"+name, bytes.NewReader([]byte(body)))
		req.Header.Set(schedule.HeaderTimestamp, ts)
		req.Header.Set(schedule.HeaderSignature, schedule.Sign(secret, ts, []byte(body)))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusAccepted {
			t.Fatalf("POST /hooks/%s: %d", name, resp.StatusCode)
		}
		answers++
		want := answers
		if _, err := api.Wait(ctx, func(wecomtest.AppRecord) bool {
			n := 0
			for _, d := range api.Delivered("alice", "") {
				if d.MsgType == "markdown" && d.Content == readOnlyHeader+"Done." {
					n++
				}
			}
			return n >= want
		}); err != nil {
			t.Fatalf("answer %d: %v; delivered %+v", want, err, api.Delivered("alice", ""))
		}
	}
	fire("plain", "first-plain-body")
	fire("ci", "ci-body")
	fire("plain", "second-plain-body")
	reqs := e.h.Server.ModelRequests()
	for _, c := range []struct{ body, instructions, cwd string }{
		{"first-plain-body", "You work on misc.", misc},
		{"ci-body", "You work on CI.", ci},
		{"second-plain-body", "You work on misc.", misc},
	} {
		r := requestWith(t, reqs, c.body)
		if !anyContains(r.Developer, c.instructions) {
			t.Errorf("the %s turn's request has no developer message with %q", c.body, c.instructions)
		}
		if !strings.Contains(string(r.Body), "<cwd>"+c.cwd+"</cwd>") {
			t.Errorf("the %s turn's request does not name cwd %s", c.body, c.cwd)
		}
	}
	second := string(requestWith(t, reqs, "second-plain-body").Body)
	if !strings.Contains(second, "first-plain-body") || strings.Contains(second, "ci-body") {
		t.Errorf("the conversation's next turn did not continue its own session: its request holds first-plain-body %v, ci-body %v",
			strings.Contains(second, "first-plain-body"), strings.Contains(second, "ci-body"))
	}
	a.stop()
}

// requestWith is the first model request whose prompt holds text.
func requestWith(t *testing.T, reqs []sm.Request, text string) sm.Request {
	t.Helper()
	for _, r := range reqs {
		if strings.Contains(r.UserText, text) {
			return r
		}
	}
	t.Fatalf("no model request for %q", text)
	return sm.Request{}
}
