package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
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

func steerScript(gate *sm.Gate) sm.Script {
	return sm.Sequence(
		sm.Reply(sm.MessageDeltas(sm.PhaseFinalAnswer, "Work", "ing.")).WithHold(1, gate),
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Did X too.")),
	)
}

// checkSteer sends /steer on ch while a turn is held mid-answer: its reply
// says it was added; the model reads it in that same turn, whose end (as
// WeCom received it) holds wants, and no second turn starts.
func checkSteer(t *testing.T, ctx context.Context, e *e2e, ch chatChannel, gate *sm.Gate, wants ...string) {
	t.Helper()
	end := ch.begin(t, ctx, "start")
	select {
	case <-gate.Reached():
	case <-ctx.Done():
		t.Fatal("the turn never reached the model's held answer")
	}
	if got := ch.begin(t, ctx, "/steer also do X")(); got != "➕ Added to the running turn: its card shows it." {
		t.Errorf("the steer's reply ended %q", got)
	}
	gate.Release()
	card := end()
	for _, want := range wants {
		if !strings.Contains(card, want) {
			t.Errorf("the turn ended %q, want it to hold %q", card, want)
		}
	}
	reqs := e.h.Server.ModelRequests()
	if len(reqs) != 2 || reqs[0].UserText != "start" || reqs[1].UserText != "also do X" {
		var asked []string
		for _, r := range reqs {
			asked = append(asked, r.UserText)
		}
		t.Errorf("the model was asked %q, want the turn's and the steer's in it", asked)
	}
	waitLeaseFree(t, ctx, e, ch.conv)
	if got := ch.say(t, ctx, "/status"); !strings.HasPrefix(got, "**Status**\n- turn: idle\n- waiting: 0\n") {
		t.Errorf("/status after the steered turn = %q, want nothing running or waiting", got)
	}
}

func TestE2ESteerOnTheWebhook(t *testing.T) {
	gate := sm.NewGate()
	e := newE2E(t, steerScript(gate))
	b := e.serve(t, "5m30s")
	checkSteer(t, within(t, 3*time.Minute), e, webhookChat(b), gate, "➕ also do X", "Did X too.")
}

func TestE2ESteerOnTheLongConnection(t *testing.T) {
	gate := sm.NewGate()
	e, srv := newLongConnE2E(t, steerScript(gate))
	a := e.serve(t, "5m30s")
	ctx := within(t, 3*time.Minute)
	subscribedBy(t, ctx, srv, a)
	checkSteer(t, ctx, e, longConnChat(srv), gate, "➕ also do X", "Did X too.")
}

func TestE2ESteerOnTheApp(t *testing.T) {
	gate := sm.NewGate()
	e := newE2E(t, steerScript(gate))
	_, api, cb := serveApp(t, e)
	checkSteer(t, within(t, 3*time.Minute), e, appChat(api, cb), gate, "Did X too.")
	// The answer is a message of its own; the progress is the card's.
	appCardShows(t, api, "➕ also do X")
}

// appCardShows checks that a template card the app sent or updated shows
// text (the app's answer is a message of its own, the rest its card).
func appCardShows(t *testing.T, api *wecomtest.AppAPI, text string) {
	t.Helper()
	var cards []string
	for _, r := range api.Records() {
		if r.API == "message/update_template_card" || r.MsgType == "template_card" {
			cards = append(cards, string(r.Card))
		}
	}
	if !slices.ContainsFunc(cards, func(c string) bool { return strings.Contains(c, text) }) {
		t.Errorf("no card shows %q:\n%s", text, strings.Join(cards, "\n"))
	}
}
