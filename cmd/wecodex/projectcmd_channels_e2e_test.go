package main

import (
	"context"
	"fmt"
	"log/slog"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/projects"
	"github.com/wecodex/wecodex/store"
)

// projectChannel is one WeCom channel of a running wecodex, as alice's
// 1:1 chat with the bot: conv is that conversation's key, say sends a
// command and returns its answer as WeCom received it, turn sends a
// message and returns once WeCom received its turn's end.
type projectChannel struct {
	conv string
	say  func(t *testing.T, ctx context.Context, text string) string
	turn func(t *testing.T, ctx context.Context, text string)
}

// projectsE2E is an e2e whose alice may use two projects: api, a git
// project on a local bare repository holding README.md ("hello"), and
// web, a path project; a turn prompted "write it" appends a line to
// README.md.
func projectsE2E(t *testing.T, e *e2e) {
	t.Helper()
	e.extra = fmt.Sprintf("projects:\n  api:\n    git: %q\n    ref: main\n    users: [alice]\n  web:\n    path: %q\n    users: [alice]\n",
		gitRemote(t), t.TempDir())
}

func projectsScript() sm.Script {
	return sm.ByPrompt(map[string][]sm.Response{"write it": {
		sm.Reply(sm.ExecCommand("c1", "printf 'alice line\\n' >> README.md")),
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Wrote it.")),
	}})
}

// checkProjectCommands drives /project, /diff, /reset and /reset yes on ch
// and checks each answer exactly as WeCom received it.
func checkProjectCommands(t *testing.T, ctx context.Context, e *e2e, ch projectChannel) {
	t.Helper()
	branch := projects.Branch(ch.conv)
	steps := []struct{ text, want string }{
		{"/project", "**Projects** (▶ this conversation's)\n- ▶ `api`\n- `web`\n\nSwitch with `/project <name>`: the next message starts a fresh session there."},
		{"/diff", "No changes in `api` on `" + branch + "` against the project's ref."},
	}
	check := func(text, want string) {
		t.Helper()
		if got := ch.say(t, ctx, text); got != want {
			t.Errorf("%s answered\n%q\nwant\n%q", text, got, want)
		}
	}
	for _, s := range steps {
		check(s.text, s.want)
	}
	ch.turn(t, ctx, "write it")
	check("/diff", fmt.Sprintf("**Changes in `api` on `%s`** against the project's ref: 1 file, +1 −0\n"+
		"- `README.md` +1 −0\n\n```diff\n"+
		"diff --git a/README.md b/README.md\nindex %s..%s 100644\n--- a/README.md\n+++ b/README.md\n"+
		"@@ -1 +1,2 @@\n hello\n+alice line\n```", branch, gitBlob(t, "hello\n"), gitBlob(t, "hello\nalice line\n")))
	check("/reset", "This discards every change this conversation made in `api` (its branch's commits, edits and new files) and cannot be undone. Send `/reset yes` to do it.")
	// The turn's end reaches WeCom just before its lease is released.
	waitLeaseFree(t, ctx, e, ch.conv)
	for _, s := range []struct{ text, want string }{
		{"/reset yes", "OK — `api` is back at the project's ref: every change of this conversation there is gone."},
		{"/diff", "No changes in `api` on `" + branch + "` against the project's ref."},
		{"/project nope", "There is no project `nope`. Projects here: `api`, `web`."},
		{"/project web", "OK — this conversation now works in `web`. The next message starts a fresh session there."},
		{"/diff", "Project `web` is a shared checkout (a path), not a git project: this conversation has no changes of its own there."},
		{"/reset yes", "Project `web` is a shared checkout (a path), not a git project: this conversation has no changes of its own there."},
	} {
		check(s.text, s.want)
	}
	wt, _ := projectDirs(e.workspace, "api", ch.conv)
	if got := readFile(t, filepath.Join(wt, "README.md")); got != "hello\n" {
		t.Errorf("after /reset yes README.md = %q, want hello", got)
	}
	// The commands never reach Codex: one turn, two model requests.
	if n := len(e.h.Server.ModelRequests()); n != 2 {
		t.Errorf("%d model requests, want 2: a command reached the model", n)
	}
}

// gitBlob is git's short id of a file holding text.
func gitBlob(t *testing.T, text string) string {
	t.Helper()
	cmd := exec.Command("git", "hash-object", "--stdin")
	cmd.Stdin = strings.NewReader(text)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	return string(out[:7])
}

// waitLeaseFree waits until no turn holds conv's lease in e's Redis.
func waitLeaseFree(t *testing.T, ctx context.Context, e *e2e, conv string) {
	t.Helper()
	db, err := store.Open(ctx, store.Options{Addrs: []string{e.redisAddrs()}, Password: e.redisURL.Password, DB: e.redisURL.DB, Prefix: e.prefix}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	q := store.NewQueue(db)
	for {
		_, token, err := q.Lease(ctx, conv)
		if err != nil {
			t.Fatal(err)
		}
		if token == 0 {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s's lease was never released", conv)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// wroteIt is ch as checkProjectCommands drives it: its turn must end
// with the script's answer.
func wroteIt(ch chatChannel) projectChannel {
	return projectChannel{
		conv: ch.conv,
		say:  ch.say,
		turn: func(t *testing.T, ctx context.Context, text string) {
			t.Helper()
			if got := ch.turn(t, ctx, text); !strings.HasSuffix(got, "Wrote it.") {
				t.Fatalf("the turn's end %q, want it to end with the answer", got)
			}
		},
	}
}

// The project commands over the webhook: each answer is the first (and
// final) stream frame of the command's callback.
func TestE2EProjectCommandsOnTheWebhook(t *testing.T) {
	e := newE2E(t, projectsScript())
	projectsE2E(t, e)
	b := e.serve(t, "5m30s")
	checkProjectCommands(t, within(t, 3*time.Minute), e, wroteIt(webhookChat(b)))
}

// The project commands over the long connection: each answer is the final
// frame of the stream on the command's req_id.
func TestE2EProjectCommandsOnTheLongConnection(t *testing.T) {
	e, srv := newLongConnE2E(t, projectsScript())
	projectsE2E(t, e)
	a := e.serve(t, "5m30s")
	ctx := within(t, 3*time.Minute)
	subscribedBy(t, ctx, srv, a)
	checkProjectCommands(t, ctx, e, wroteIt(longConnChat(srv)))
}

// The project commands on the self-built app: each answer is the markdown
// message qyapi's message/send delivered to alice after the callback.
func TestE2EProjectCommandsOnTheApp(t *testing.T) {
	e := newE2E(t, projectsScript())
	projectsE2E(t, e)
	_, api, cb := serveApp(t, e)
	checkProjectCommands(t, within(t, 3*time.Minute), e, wroteIt(appChat(api, cb)))
}
