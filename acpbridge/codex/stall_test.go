package codex

import (
	"strings"
	"syscall"
	"testing"

	"github.com/wecodex/wecodex/acpbridge"
	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
)

// With Redis stopped (SIGSTOP), two conversations on the one app-server
// stream their whole answers: the read loop never waits for Redis. The
// phases written meanwhile reach Redis once it runs again.
func TestRedisStalledWhileTwoConversationsStream(t *testing.T) {
	ctx := testCtx(t)
	rs := startOwnRedis(t)
	st := openOwnStore(t, ctx, rs)
	gate := sm.NewGate()
	t.Cleanup(gate.Release)
	a, h := newAgent(t, sm.ByPrompt(map[string][]sm.Response{
		"alpha": {sm.Reply(
			sm.Message(sm.PhaseCommentary, "Alpha is thinking."),
			sm.Message(sm.PhaseFinalAnswer, "Alpha answer here."),
		)},
		"beta": {sm.Reply(
			sm.Message(sm.PhaseCommentary, "Beta is thinking."),
			sm.Message(sm.PhaseFinalAnswer, "Beta answer here."),
		)},
		"gamma": {sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Gamma held answer.")).WithHold(1, gate)},
	}), sm.HomeOptions{}, Options{Phases: st})
	idA, err := a.NewSession(ctx, h.Workspace)
	if err != nil {
		t.Fatal(err)
	}
	idB, err := a.NewSession(ctx, h.Workspace)
	if err != nil {
		t.Fatal(err)
	}

	rs.signal(t, syscall.SIGSTOP)
	resA := promptAsync(ctx, a, idA, "alpha question")
	resB := promptAsync(ctx, a, idB, "beta question")
	ra, rb := <-resA, <-resB
	if ra.err != nil || rb.err != nil {
		t.Fatalf("prompts with Redis stopped: %v, %v", ra.err, rb.err)
	}
	equalLines(t, "alpha", texts(ra.rec), []string{"thought Alpha is thinking.", "message Alpha answer here."})
	equalLines(t, "beta", texts(rb.rec), []string{"thought Beta is thinking.", "message Beta answer here."})

	// A third turn starts its message while Redis is still stopped...
	rec := newChunkSignal()
	resC := promptInto(ctx, a, idA, "gamma question", rec)
	<-rec.seen
	rs.signal(t, syscall.SIGCONT)
	// ...and its phase reaches Redis once Redis runs again (the third
	// model request answers it: msg_resp_3_0).
	waitFor(t, ctx, "the held message's phase reaching Redis", func() bool {
		p, ok, err := st.Phase(ctx, string(idA), "msg_resp_3_0")
		return err == nil && ok && p == string(acpbridge.PhaseFinalAnswer)
	})
	gate.Release()
	rc := <-resC
	if rc.err != nil {
		t.Fatal(rc.err)
	}
	equalLines(t, "gamma", texts(rc.rec), []string{"message Gamma held answer."})
	if err := a.cache.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := st.Phase(ctx, string(idA), "msg_resp_3_0"); ok || err != nil {
		t.Fatalf("completed message's phase still in Redis: ok=%v err=%v", ok, err)
	}
}

// texts is the recorder's agent text, one line per message, without ids
// (the response numbers depend on which conversation reached the model
// first).
func texts(r *recorder) []string {
	var out []string
	for _, l := range only(r.merged(), "thought", "message") {
		kind, rest, _ := cut(l, "[")
		_, text, _ := cut(rest, "] ")
		out = append(out, kind+" "+text)
	}
	return out
}

func cut(s, sep string) (string, string, bool) { return strings.Cut(s, sep) }
