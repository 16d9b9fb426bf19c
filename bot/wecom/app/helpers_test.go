package app

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wecodex/wecodex/acpbridge/codex"
	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/bot/wecom"
	"github.com/wecodex/wecodex/internal/codextest"
	"github.com/wecodex/wecodex/internal/testenv"
	"github.com/wecodex/wecodex/internal/wecomtest"
	"github.com/wecodex/wecodex/store"
)

const (
	testCorp    = "ww0123456789abcdef"
	testAgent   = 1000002
	testSecret  = "app-secret-xyz"
	testToken   = "appToken42"
	testAESKey  = "ICEiIyQlJicoKSorLC0uLzAxMjM0NTY3ODk6Ozw9Pj8"
	testUser    = "zhangsan"
	otherUser   = "lisi"
	textRefused = "Sorry, you are not allowed to use this bot. Ask an admin to add you to the access list."
)

// fakeClock moves only when someone sleeps on it: paced sends then take no
// wall time, and the fake's rate limit reads the same clock.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{now: time.UnixMilli(1_800_000_000_000)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t := c.now.Add(d); t.After(c.now) {
		c.now = t
	}
	return ctx.Err()
}

// rig is one test's WeCom (the API fake and the callback side), store
// prefix and clock; replicas are channels (and engines) on it.
type rig struct {
	api    *wecomtest.AppAPI
	clock  *fakeClock
	prefix string
	logs   *testenv.LogBuffer
	// allowed is wecom.allowed_hosts for the rig's channels; nil allows
	// the fake API's loopback address.
	allowed []string
}

func newRig(t *testing.T) *rig {
	t.Helper()
	clock := newFakeClock()
	api := wecomtest.NewAppAPI(wecomtest.AppAPIOptions{CorpID: testCorp, Secret: testSecret, AgentID: testAgent, Now: clock.Now})
	t.Cleanup(api.Close)
	rg := &rig{api: api, clock: clock, prefix: testenv.Prefix(t, "wecom-app"), logs: &testenv.LogBuffer{}}
	rg.dumpOnFailure(t)
	return rg
}

func (r *rig) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(r.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// hosts allow the rig's fake API, on loopback; set r.allowed to test
// others.
func (r *rig) hosts(t *testing.T) *wecom.AllowedHosts {
	t.Helper()
	allowed := r.allowed
	if allowed == nil {
		allowed = []string{"127.0.0.1"}
	}
	h, err := wecom.NewAllowedHosts(allowed...)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// channel is a replica's channel on the rig.
func (r *rig) channel(t *testing.T, replica string) (*Channel, *testenv.Stores) {
	t.Helper()
	st := testenv.OpenStores(t, r.prefix)
	c, err := New(Options{CorpID: testCorp, AgentID: "1000002", Secret: testSecret, Token: testToken, EncodingAESKey: testAESKey,
		Store: st, Replica: replica, APIBase: r.api.URL(), Clock: r.clock, Logger: r.logger(), Hosts: r.hosts(t)})
	if err != nil {
		t.Fatal(err)
	}
	return c, st
}

// replica is a channel with its engine, running Codex, and its endpoint.
type replica struct {
	ch     *Channel
	engine *bot.Engine
	cb     *wecomtest.AppCallbacks
	root   string
	url    string
}

func (r *rig) replica(t *testing.T, h *codextest.Harness, ask bool) *replica {
	t.Helper()
	ch, st := r.channel(t, "A")
	log := r.logger()
	opts := codex.Options{Bin: h.Bin, Env: h.CodexEnv(), Phases: st, Logger: log}
	if ask {
		opts.Sandbox, opts.ApprovalPolicy = "workspace-write", "on-request"
	}
	agent := codex.New(opts)
	t.Cleanup(func() { _ = agent.Close() })
	root := t.TempDir()
	// The requester decides their own requests here (access.approvers:
	// [requester]); nobody else is an approver.
	access := bot.Access{AllowUsers: []string{testUser, otherUser}, Approvers: []string{bot.ApproverRequester}}
	engine, err := bot.New(bot.Config{LeaseTTL: store.LeaseTTL, HeartbeatTTL: store.ReplicaTTL, Replica: "A", WorkspaceRoot: root, TurnTimeout: time.Minute,
		UpdateInterval: 10 * time.Millisecond, PollInterval: 20 * time.Millisecond,
		Access: access, Logger: log}, testenv.EngineStore(st), agent, ch)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(ch.Handler(engine))
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = engine.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return &replica{ch: ch, engine: engine, cb: callbacks(t, srv.URL), root: root, url: srv.URL}
}

func callbacks(t *testing.T, url string) *wecomtest.AppCallbacks {
	t.Helper()
	cb, err := wecomtest.NewAppCallbacks(wecomtest.AppConfig{URL: url, CorpID: testCorp, AgentID: testAgent, Token: testToken, EncodingAESKey: testAESKey})
	if err != nil {
		t.Fatal(err)
	}
	return cb
}

func waitCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// sendText posts a text message and checks it was answered 200 with no
// passive reply.
func sendText(t *testing.T, cb *wecomtest.AppCallbacks, user, text string) {
	t.Helper()
	rep, err := cb.Send(waitCtx(t), wecomtest.AppText(user, text))
	if err != nil || rep.Status != 200 || rep.Plain != nil {
		t.Fatalf("text callback: status %d plain %q err %v", rep.Status, rep.Plain, err)
	}
}

// isUpdate matches a successful update_template_card.
func isUpdate(r wecomtest.AppRecord) bool {
	return r.API == "message/update_template_card" && r.Errcode == 0
}

// card is the part of a template card the tests read.
type card struct {
	CardType  string `json:"card_type"`
	MainTitle struct {
		Title string `json:"title"`
		Desc  string `json:"desc"`
	} `json:"main_title"`
	TaskID  string `json:"task_id"`
	Buttons []struct {
		Text  string `json:"text"`
		Style int    `json:"style"`
		Key   string `json:"key"`
	} `json:"button_list"`
}

func cardOf(t *testing.T, raw json.RawMessage) card {
	t.Helper()
	var c card
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatalf("card %s: %v", raw, err)
	}
	return c
}

func (c card) buttons() string {
	var out []string
	for _, b := range c.Buttons {
		out = append(out, b.Text+"="+b.Key)
	}
	return strings.Join(out, " ")
}

func contents(recs []wecomtest.AppRecord) []string {
	var out []string
	for _, r := range recs {
		out = append(out, r.Content)
	}
	return out
}

func (r *rig) dumpOnFailure(t *testing.T) {
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("logs:\n%s", r.logs.String())
		}
	})
}
