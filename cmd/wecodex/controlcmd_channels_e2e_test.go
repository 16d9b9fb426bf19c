package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wecodex/wecodex/bot"
	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/wecomtest"
)

func controlScript() sm.Script {
	return sm.ByPrompt(map[string][]sm.Response{
		"keep this": {sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Kept."))},
		"write the file": {
			sm.Reply(sm.ExecCommand("call_w", "printf changed > notes.txt")),
			sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Wrote it.")),
		},
		"CONTEXT CHECKPOINT COMPACTION": {sm.Reply(sm.Message(sm.PhaseFinalAnswer, "SUMMARY of the talk."))},
	})
}

// checkControlCommands drives /undo and /compact on ch, a real wecodex
// serve: /undo's card, as WeCom received it, names the undone turn and the
// file it removed, which is gone from the workspace; /compact's says it
// compacted, the model having been asked Codex's compaction; neither
// command reaches the model as a prompt.
func checkControlCommands(t *testing.T, ctx context.Context, e *e2e, ch chatChannel) {
	t.Helper()
	turn := func(text string, wants ...string) {
		t.Helper()
		got := ch.turn(t, ctx, text)
		for _, want := range wants {
			if !strings.Contains(got, want) {
				t.Errorf("%s's turn ended\n%q\nwant it to hold %q", text, got, want)
			}
		}
		waitLeaseFree(t, ctx, e, ch.conv)
	}
	notes := filepath.Join(bot.WorkspaceDir(e.workspace, ch.conv), "notes.txt")
	turn("keep this", "Kept.")
	turn("write the file", "Wrote it.")
	if b, err := os.ReadFile(notes); err != nil || string(b) != "changed" {
		t.Fatalf("the turn did not write notes.txt: %q %v", b, err)
	}
	turn("/undo", "Undid the last turn, which was asked: “write the file”", "Removed, as it had created them:", "`notes.txt`")
	if _, err := os.Stat(notes); !os.IsNotExist(err) {
		t.Errorf("notes.txt after /undo: %v, want it gone", err)
	}
	turn("/compact", "🗜 Compacted: Codex carries this conversation on from a summary of it.")
	var asked []string
	for _, r := range e.h.Server.ModelRequests() {
		asked = append(asked, r.UserText)
	}
	if len(asked) != 4 || asked[0] != "keep this" || asked[1] != "write the file" || asked[2] != "write the file" || !strings.Contains(asked[3], "CONTEXT CHECKPOINT COMPACTION") {
		t.Errorf("the model was asked %q, want the two turns' and Codex's compaction", asked)
	}
}

func TestE2EControlCommandsOnTheWebhook(t *testing.T) {
	e := newE2E(t, controlScript())
	b := e.serve(t, "5m30s")
	checkControlCommands(t, within(t, 3*time.Minute), e, webhookChat(b))
}

func TestE2EControlCommandsOnTheLongConnection(t *testing.T) {
	e, srv := newLongConnE2E(t, controlScript())
	a := e.serve(t, "5m30s")
	ctx := within(t, 3*time.Minute)
	subscribedBy(t, ctx, srv, a)
	checkControlCommands(t, ctx, e, longConnChat(srv))
}

func TestE2EControlCommandsOnTheApp(t *testing.T) {
	e := newE2E(t, controlScript())
	_, api, cb := serveApp(t, e)
	checkControlCommands(t, within(t, 3*time.Minute), e, appChat(api, cb))
}

// /steer on the webhook while a turn is held mid-answer: its reply waits,
// then says it was added; the model reads it in that same turn, whose
// card's progress shows it, and no second turn starts.
func TestE2ESteerOnTheWebhook(t *testing.T) {
	gate := sm.NewGate()
	e := newE2E(t, sm.Sequence(
		sm.Reply(sm.MessageDeltas(sm.PhaseFinalAnswer, "Work", "ing.")).WithHold(1, gate),
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Did X too.")),
	))
	b := e.serve(t, "5m30s")
	ctx := within(t, 3*time.Minute)
	turn, err := b.sim.Send(ctx, wecomtest.Message{From: "alice", Text: "start"})
	if err != nil {
		t.Fatal(err)
	}
	<-gate.Reached()
	steer, err := b.sim.Send(ctx, wecomtest.Message{From: "alice", Text: "/steer also do X"})
	if err != nil {
		t.Fatal(err)
	}
	last, _ := follow(t, ctx, b.sim, steer.ID)
	if last.Content != "➕ Added to the running turn: its card shows it." {
		t.Errorf("the steer's reply ended %q", last.Content)
	}
	gate.Release()
	card, _ := follow(t, ctx, b.sim, turn.ID)
	for _, want := range []string{"➕ also do X", "Did X too."} {
		if !strings.Contains(card.Content, want) {
			t.Errorf("the turn's card ended %q, want it to hold %q", card.Content, want)
		}
	}
	reqs := e.h.Server.ModelRequests()
	if len(reqs) != 2 || reqs[0].UserText != "start" || reqs[1].UserText != "also do X" {
		t.Errorf("%d model requests, want the turn's and the steer's in it", len(reqs))
	}
}
