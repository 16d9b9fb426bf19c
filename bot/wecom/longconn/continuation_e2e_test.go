package longconn

import (
	"strings"
	"testing"

	"github.com/wecodex/wecodex/internal/codextest"
	"github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/wecomtest"
)

// TestEngineExpiredMidWordContinuesAtTheWord: WeCom expires the stream
// (846608) right after a frame that showed half a word of the real
// Codex's answer; the aibot_send_msg continuation starts at that word,
// holds the rest of the answer exactly once, and carries no <think>
// markup.
func TestEngineExpiredMidWordContinuesAtTheWord(t *testing.T) {
	gate := scriptedmodel.NewGate()
	t.Cleanup(gate.Release)
	h := codextest.Start(t, scriptedmodel.Sequence(scriptedmodel.Reply(
		scriptedmodel.Message("commentary", "Thinking it over."),
		scriptedmodel.MessageDeltas("final_answer", "Final", " answer:", " ECHO[w", "indow-msg-0123456789]", " and", " more."),
	).WithHold(6, gate)))
	srv, _ := startEngine(t, h)
	ctx := waitCtx(t)
	reqID, mid := heldTurn(t, ctx, srv, gate, "expire mid-word", "ECHO[w")
	if !strings.Contains(mid.Stream().Content, "<think>") {
		t.Fatalf("frame %q: want the stream to fold its progress in <think>", mid.Stream().Content)
	}
	srv.ExpireStream(reqID)
	gate.Release()
	const rest = "ECHO[window-msg-0123456789] and more."
	waitSent(t, ctx, srv, len(rest))
	sent := strings.Join(sentMarkdown(t, srv), "")
	if sent != rest {
		t.Fatalf("continuation %q, want it to start at the word the stream cut and hold the rest once: %q", sent, rest)
	}
	for _, r := range srv.Requests(CmdSend) {
		if strings.Contains(r.Markdown(), "<think>") || strings.Contains(r.Markdown(), "Thinking it over") {
			t.Errorf("continuation %q carries the progress section", r.Markdown())
		}
	}
	for _, r := range srv.Requests(CmdRespond) {
		if r.ReqID == reqID && r.Errcode != 0 && r.Errcode != wecomtest.CodeStreamExpired {
			t.Fatalf("frame %d answered %d, want 0 or 846608", r.Seq, r.Errcode)
		}
	}
}
