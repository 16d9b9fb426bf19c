package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/store"
)

func sessionsScript() sm.Script {
	answer := func(s string) []sm.Response { return []sm.Response{sm.Reply(sm.Message(sm.PhaseFinalAnswer, s))} }
	return sm.ByPrompt(map[string][]sm.Response{
		"first topic": answer("One."), "second topic": answer("Two."), "first again": answer("Again."),
	})
}

// checkSessionCommands drives /sessions, /name, /resume and /fork on ch
// and checks each answer exactly as WeCom received it; the turn after
// /resume carries the resumed session's history only, and no command
// reaches the model.
func checkSessionCommands(t *testing.T, ctx context.Context, e *e2e, ch chatChannel) {
	t.Helper()
	check := func(text, want string) {
		t.Helper()
		if got := ch.say(t, ctx, text); got != want {
			t.Errorf("%s answered\n%q\nwant\n%q", text, got, want)
		}
	}
	turn := func(text, answer string) {
		t.Helper()
		if got := ch.turn(t, ctx, text); !strings.HasSuffix(got, answer) {
			t.Fatalf("%s's turn ended %q, want %q", text, got, answer)
		}
		// The turn's end reaches WeCom just before its lease is released.
		waitLeaseFree(t, ctx, e, ch.conv)
	}
	check("/sessions", "This conversation has no sessions yet: the next message starts one.")
	turn("first topic", "One.")
	check("/new", "OK — the next message starts a fresh session.")
	turn("second topic", "Two.")
	check("/name  the second one", "OK — this session is named “the second one”.")
	check("/status", "**Status**\n- turn: idle\n- waiting: 0\n- session: “the second one” (/new starts a fresh one)\n- model: Codex's default\n- effort: Codex's default\n- mode: `workspace` (the default)")
	check("/sessions", sessionsAnswer(t, ctx, e, ch.conv, false, "the second one", "first topic"))
	check("/resume first", "`/resume <n>` takes the number of a session on `/sessions`.")
	check("/resume 3", "There is no session 3 here: `/sessions` lists this conversation's 2.")
	check("/resume 2", "OK — this conversation is on session 2, “first topic”, again: the next message continues it.")
	turn("first again", "Again.")
	var body string
	for _, r := range e.h.Server.ModelRequests() {
		if r.UserText == "first again" {
			body = string(r.Body)
		}
	}
	if !strings.Contains(body, "first topic") || !strings.Contains(body, "One.") || strings.Contains(body, "second topic") {
		t.Errorf("the request after /resume 2 does not carry exactly the first session's history:\n%s", body)
	}
	check("/fork 2", "OK — session 2, “the second one”, is forked: the next message continues the new branch, and the original stays as it was.")
	check("/sessions", sessionsAnswer(t, ctx, e, ch.conv, true, "the second one", "first topic", "the second one"))
	if n := len(e.h.Server.ModelRequests()); n != 3 {
		t.Errorf("%d model requests, want 3: a command reached the model", n)
	}
}

// sessionsAnswer is /sessions' answer for conv with these labels, newest
// use first, the first the current one (a fork when forked), their times
// as e's Redis recorded them.
func sessionsAnswer(t *testing.T, ctx context.Context, e *e2e, conv string, forked bool, labels ...string) string {
	t.Helper()
	db, err := store.Open(ctx, store.Options{Addrs: []string{e.redisAddrs()}, Password: e.redisURL.Password, DB: e.redisURL.DB, Prefix: e.prefix}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ids, _, used, err := store.NewThreads(db).UsedThreads(ctx, conv)
	if err != nil || len(ids) != len(labels) {
		t.Fatalf("%s has sessions %v (%v), want %d", conv, ids, err, len(labels))
	}
	var b strings.Builder
	b.WriteString("**Sessions** of this conversation (▶ the one it is on)\n")
	for i, l := range labels {
		mark, extra := "", ""
		if i == 0 {
			mark = "▶ "
			if forked {
				extra = " · fork"
			}
		}
		fmt.Fprintf(&b, "%d. %s“%s” — %s%s\n", i+1, mark, l, used[i].UTC().Format("2006-01-02 15:04 UTC"), extra)
	}
	b.WriteString("\n`/resume <n>` continues one, `/fork <n>` branches one into a new session, `/name <text>` names the current one.")
	return b.String()
}

func TestE2ESessionCommandsOnTheWebhook(t *testing.T) {
	e := newE2E(t, sessionsScript())
	b := e.serve(t, "5m30s")
	checkSessionCommands(t, within(t, 3*time.Minute), e, webhookChat(b))
}

func TestE2ESessionCommandsOnTheLongConnection(t *testing.T) {
	e, srv := newLongConnE2E(t, sessionsScript())
	a := e.serve(t, "5m30s")
	ctx := within(t, 3*time.Minute)
	subscribedBy(t, ctx, srv, a)
	checkSessionCommands(t, ctx, e, longConnChat(srv))
}

func TestE2ESessionCommandsOnTheApp(t *testing.T) {
	e := newE2E(t, sessionsScript())
	_, api, cb := serveApp(t, e)
	checkSessionCommands(t, within(t, 3*time.Minute), e, appChat(api, cb))
}
