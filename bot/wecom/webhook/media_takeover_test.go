package webhook_test

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/wecodex/wecodex/bot/wecom"
	"github.com/wecodex/wecodex/bot/wecom/webhook"
	"github.com/wecodex/wecodex/internal/intaketest"
	"github.com/wecodex/wecodex/internal/testenv"
	"github.com/wecodex/wecodex/internal/wecomtest"
)

// mediaReplica is one replica of the webhook with media: an engine with
// the fake agent and its endpoint, on the Redis keys under prefix.
type mediaReplica struct {
	r *replica
	h *webhook.Handler
}

func newMediaReplica(t *testing.T, prefix, name string, o webhook.HandlerOptions) mediaReplica {
	t.Helper()
	r := newReplica(t, testenv.OpenStores(t, prefix), testConfig(t, name))
	r.run(t)
	o.Token, o.EncodingAESKey, o.Streams = hookToken, hookAESKey, r.e.ch.Streams(r.e.Engine)
	o.Logger = slog.New(slog.DiscardHandler)
	o.Media = wecom.Fetcher{Hosts: loopbackHosts(t)}
	h, err := webhook.NewHandler(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	return mediaReplica{r: r, h: h}
}

// killedDuringDownload sends a picture to replica a, whose download is
// held, and stops a while the download runs (killed or shut down, it
// writes nothing more either way). It returns the message's stream, and
// the link with its download released.
func killedDuringDownload(t *testing.T, prefix string) (stream string, media *wecomtest.MediaServer, l wecomtest.MediaLink) {
	t.Helper()
	media = wecomtest.NewMediaServer(nil)
	t.Cleanup(media.Close)
	a := newMediaReplica(t, prefix, "a", webhook.HandlerOptions{FetchClaim: 300 * time.Millisecond})
	srv := httptest.NewServer(a.h)
	t.Cleanup(srv.Close)
	sim, err := wecomtest.New(wecomtest.Config{URL: srv.URL, Token: hookToken, EncodingAESKey: hookAESKey, AIBotID: hookBotID})
	if err != nil {
		t.Fatal(err)
	}
	key, err := wecom.DecodeAESKey(hookAESKey)
	if err != nil {
		t.Fatal(err)
	}
	l, release, err := media.AddHeld(wecomtest.MediaFile{Key: key, Data: intaketest.PNG})
	if err != nil {
		t.Fatal(err)
	}
	st, err := sim.Send(context.Background(), wecomtest.Message{MsgID: "k1", From: "alice", MsgType: "mixed",
		Items: []wecomtest.Item{{Text: "what is this?"}, {ImageURL: l.URL}}})
	if err != nil {
		t.Fatal(err)
	}
	if st.First.Content != "Fetching the attachments…" || st.First.Finish {
		t.Fatalf("the message was answered %+v, want fetching", st.First)
	}
	eventually(t, func() string { return "replica a never asked for the picture" }, func() bool { return media.Gets(l) == 1 })
	a.h.Close()
	a.r.stop()
	release()
	return st.ID, media, l
}

// A replica stops during a picture's download after WeCom was answered:
// another replica takes the recorded message over once the claim lapses,
// fetches the picture again and runs the turn; the card finishes with its
// answer, and the message runs once.
func TestWebhookMediaTakenOverWhenItsReplicaDies(t *testing.T) {
	prefix := testenv.Prefix(t, "media-takeover")
	stream, media, l := killedDuringDownload(t, prefix)
	b := newMediaReplica(t, prefix, "b", webhook.HandlerOptions{FetchClaim: 300 * time.Millisecond})
	got := waitFinished(t, b.r.e, stream).Content
	if want := (card{text: "what is this?", withAnswer: true, status: done()}).render(); got != want {
		t.Fatalf("card after the take-over:\n%q\nwant\n%q", got, want)
	}
	if p := b.r.agent.Prompts(); !slices.Equal(p, []string{"what is this?"}) {
		t.Fatalf("b's prompts %q, want the message once", p)
	}
	if n := media.Gets(l); n != 2 {
		t.Fatalf("the picture was asked for %d times, want 2 (a's, b's)", n)
	}
}

// The same when WeCom's links expired before any replica could take the
// message over: the card says the message was lost, and why.
func TestWebhookMediaLostWhenItsLinksExpired(t *testing.T) {
	prefix := testenv.Prefix(t, "media-takeover")
	stream, media, l := killedDuringDownload(t, prefix)
	later := func() time.Time { return time.Now().Add(6 * time.Minute) }
	b := newMediaReplica(t, prefix, "b", webhook.HandlerOptions{FetchClaim: 300 * time.Millisecond, Now: later})
	f := waitFinished(t, b.r.e, stream)
	if want := "Sorry, this message was lost: the server fetching its attachments stopped, and WeCom's links to them have expired since. Please send it again."; f.Content != want {
		t.Fatalf("card after the links expired: %q, want %q", f.Content, want)
	}
	if n, p := media.Gets(l), b.r.agent.Prompts(); n != 1 || len(p) != 0 {
		t.Fatalf("picture asked for %d times, prompts %q; want 1 and none", n, p)
	}
}
