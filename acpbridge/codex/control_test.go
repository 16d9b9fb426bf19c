package codex

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge"
	"github.com/wecodex/wecodex/internal/scriptedmodel"
)

// gitRepo makes dir a git repository with one committed file and one
// uncommitted change, for a review of uncommitted changes.
func gitRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	run := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run("init", "-q")
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run("add", "a.txt")
	run("commit", "-qm", "first")
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A review is a turn of its own: what it reviews is a progress line, the
// reviewer's raw findings never reach the card, and the review Codex
// writes from them is the answer. The model is asked by Codex's reviewer.
func TestReviewStreamsTheReviewAsTheAnswer(t *testing.T) {
	ctx := testCtx(t)
	review := `{"findings":[],"overall_correctness":"patch is correct","overall_explanation":"The change from one to two is fine.","overall_confidence_score":0.9}`
	script := scriptedmodel.Sequence(scriptedmodel.Reply(scriptedmodel.MessageDeltas("final_answer", scriptedmodel.SplitWords(review)...)))
	a, h := newAgent(t, script, scriptedmodel.HomeOptions{}, Options{})
	id, err := a.NewSession(ctx, gitRepo(t))
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	stop, err := a.Review(ctx, id, "", rec)
	if err != nil || stop != acp.StopReasonEndTurn {
		t.Fatalf("Review: %v %v", stop, err)
	}
	var got []string
	for _, l := range rec.merged() {
		// Item ids are Codex's own.
		kind, rest, _ := strings.Cut(l, "[")
		_, text, _ := strings.Cut(rest, "] ")
		got = append(got, kind+" "+text)
	}
	equalLines(t, "review card", only(got, "thought", "message"), []string{
		"thought Reviewing: current changes",
		"message The change from one to two is fine.",
	})
	reqs := h.Server.ModelRequests()
	if len(reqs) != 1 || !strings.HasPrefix(reqs[0].UserText, "Review the current code changes") {
		t.Fatalf("model requests: %d, first %q", len(reqs), reqs[0].UserText)
	}
}

// Compact sends thread/compact/start: Codex asks the model for a summary
// in a turn of its own, whose notice is no answer.
func TestCompactCompactsInATurnOfItsOwn(t *testing.T) {
	ctx := testCtx(t)
	script := scriptedmodel.Sequence(
		scriptedmodel.Reply(scriptedmodel.Message("final_answer", "one")),
		scriptedmodel.Reply(scriptedmodel.Message("final_answer", "SUMMARY of the talk")),
		scriptedmodel.Reply(scriptedmodel.Message("final_answer", "three")),
	)
	a, h := newAgent(t, script, scriptedmodel.HomeOptions{}, Options{})
	id, err := a.NewSession(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	prompt(t, ctx, a, id, "first")
	rec := &recorder{}
	stop, err := a.Compact(ctx, id, rec)
	if err != nil || stop != acp.StopReasonEndTurn {
		t.Fatalf("Compact: %v %v", stop, err)
	}
	equalLines(t, "compaction's answer", only(rec.merged(), "message"), nil)
	equalLines(t, "compaction's notices", rec.noticeLines(), []string{"info: Context compacted"})
	prompt(t, ctx, a, id, "after")
	reqs := h.Server.ModelRequests()
	if len(reqs) != 3 || !strings.Contains(reqs[1].UserText, "CONTEXT CHECKPOINT COMPACTION") {
		t.Fatalf("model requests: %d; the second asks %q", len(reqs), reqs[1].UserText)
	}
	if !strings.Contains(string(reqs[2].Body), "SUMMARY of the talk") {
		t.Errorf("the request after the compaction does not carry its summary")
	}
}

// Steer adds text to the running turn: the model reads it in that turn's
// next request, and no second turn starts.
func TestSteerReachesTheRunningTurn(t *testing.T) {
	ctx := testCtx(t)
	gate := scriptedmodel.NewGate()
	script := scriptedmodel.Sequence(
		scriptedmodel.Reply(scriptedmodel.MessageDeltas("final_answer", "work", "ing")).WithHold(1, gate),
		scriptedmodel.Reply(scriptedmodel.Message("final_answer", "steered")),
	)
	a, h := newAgent(t, script, scriptedmodel.HomeOptions{}, Options{})
	id, err := a.NewSession(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Steer(ctx, id, "too early"); err != ErrNoRunningTurn {
		t.Fatalf("Steer with no turn: %v, want ErrNoRunningTurn", err)
	}
	rec := &recorder{}
	done := make(chan error, 1)
	go func() {
		_, err := a.Prompt(ctx, id, acpbridge.TextPrompt("start"), rec)
		done <- err
	}()
	<-gate.Reached()
	if err := a.Steer(ctx, id, "also do X"); err != nil {
		t.Fatalf("Steer: %v", err)
	}
	gate.Release()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	reqs := h.Server.ModelRequests()
	if len(reqs) != 2 || reqs[0].UserText != "start" || reqs[1].UserText != "also do X" {
		t.Fatalf("model requests: %d, want the turn's and then the steer's", len(reqs))
	}
	equalLines(t, "one turn's answer", only(rec.merged(), "message[msg_resp_2"), []string{"message[msg_resp_2_0] steered"})
}

// Undo after a turn that changed, created and deleted files puts every one
// back, says which, and the model's next request no longer carries the
// undone turn.
func TestUndoRevertsTheLastTurnAndItsFiles(t *testing.T) {
	ctx := testCtx(t)
	script := scriptedmodel.Sequence(
		scriptedmodel.Reply(scriptedmodel.Message("final_answer", "kept answer")),
		scriptedmodel.Reply(scriptedmodel.ExecCommand("call_w", "printf changed > a.txt; printf new > b.txt; rm c.txt")),
		scriptedmodel.Reply(scriptedmodel.Message("final_answer", "wrote them")),
		scriptedmodel.Reply(scriptedmodel.Message("final_answer", "after undo")),
	)
	snaps := t.TempDir()
	a, h := newAgent(t, script, scriptedmodel.HomeOptions{}, Options{SnapshotDir: snaps})
	cwd := t.TempDir()
	for name, text := range map[string]string{"a.txt": "original", "c.txt": "doomed"} {
		if err := os.WriteFile(filepath.Join(cwd, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	id, err := a.NewSession(ctx, cwd)
	if err != nil {
		t.Fatal(err)
	}
	prompt(t, ctx, a, id, "keep this")
	prompt(t, ctx, a, id, "write the files")
	if b, _ := os.ReadFile(filepath.Join(cwd, "a.txt")); string(b) != "changed" {
		t.Fatalf("the turn did not write a.txt: %q", b)
	}
	u, err := a.Undo(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if u.Prompt != "write the files" || strings.Join(u.Files, ",") != "a.txt,c.txt" || strings.Join(u.Removed, ",") != "b.txt" || u.FilesKept || u.TurnID == "" {
		t.Fatalf("Undo: %+v", u)
	}
	for name, want := range map[string]string{"a.txt": "original", "c.txt": "doomed"} {
		if b, err := os.ReadFile(filepath.Join(cwd, name)); err != nil || string(b) != want {
			t.Errorf("%s after undo: %q %v, want %q", name, b, err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(cwd, "b.txt")); !os.IsNotExist(err) {
		t.Errorf("b.txt after undo: %v, want it gone", err)
	}
	prompt(t, ctx, a, id, "next")
	reqs := h.Server.ModelRequests()
	body := string(reqs[len(reqs)-1].Body)
	if !strings.Contains(body, "keep this") || !strings.Contains(body, "kept answer") {
		t.Errorf("the next request lost the turn before the undone one")
	}
	for _, gone := range []string{"write the files", "wrote them", "call_w"} {
		if strings.Contains(body, gone) {
			t.Errorf("the next request still carries %q of the undone turn", gone)
		}
	}
	// The thread's snapshots, copies of its files, go when it is deleted.
	if _, err := os.Stat(filepath.Join(snaps, string(id)+".git", "HEAD")); err != nil {
		t.Fatalf("the thread's snapshots: %v", err)
	}
	if err := a.DeleteThread(ctx, string(id)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(snaps, string(id)+".git")); !os.IsNotExist(err) {
		t.Errorf("the deleted thread's snapshots: %v, want them gone", err)
	}
}

// A turn's snapshot outlives the process that took it: another one on the
// same snapshot directory (a restart, a replica sharing workspace_root)
// undoes the turn with its files.
func TestUndoInAnotherProcessPutsTheFilesBack(t *testing.T) {
	ctx := testCtx(t)
	script := scriptedmodel.Sequence(
		scriptedmodel.Reply(scriptedmodel.ExecCommand("call_w", "printf changed > a.txt")),
		scriptedmodel.Reply(scriptedmodel.Message("final_answer", "wrote it")),
	)
	snaps, cwd := t.TempDir(), t.TempDir()
	writeTestFile(t, filepath.Join(cwd, "a.txt"), "original")
	a, h := newAgent(t, script, scriptedmodel.HomeOptions{}, Options{SnapshotDir: snaps})
	id, err := a.NewSession(ctx, cwd)
	if err != nil {
		t.Fatal(err)
	}
	prompt(t, ctx, a, id, "write it")
	_ = a.Close()
	b := agentOn(t, h, Options{SnapshotDir: snaps})
	// As the bot does with a session an earlier process started.
	if err := b.LoadSession(ctx, id, cwd, &recorder{}); err != nil {
		t.Fatal(err)
	}
	u, err := b.Undo(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if u.Prompt != "write it" || strings.Join(u.Files, ",") != "a.txt" || u.FilesKept {
		t.Fatalf("Undo in another process: %+v", u)
	}
	if got, _ := os.ReadFile(filepath.Join(cwd, "a.txt")); string(got) != "original" {
		t.Errorf("a.txt after the undo: %q, want original", got)
	}
}

func writeTestFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
