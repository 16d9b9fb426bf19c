package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/bot/wecom"
	"github.com/wecodex/wecodex/cards"
)

// Name is the app channel's name in queued messages and on /readyz.
const Name = "wecom_app"

// DefaultHTTPTimeout bounds each app API call.
const DefaultHTTPTimeout = 10 * time.Second

// CardStore keeps each reply's progress-card code and whether its end went
// out; *store.App implements it.
type CardStore interface {
	SaveCardCode(ctx context.Context, streamID, code string) error
	// TakeCardCode returns the code and deletes it: it works once.
	TakeCardCode(ctx context.Context, streamID string) (string, error)
	CardOpen(ctx context.Context, streamID string) (bool, error)
	ClaimFinish(ctx context.Context, streamID string) (bool, error)
}

// Store is everything the channel keeps in the shared store.
type Store interface {
	TokenStore
	Pacer
	CardStore
}

// Options configure a Channel: the five wecom.app values, the shared store
// and, for tests and private deployments, where the API is.
type Options struct {
	CorpID, AgentID, Secret, Token, EncodingAESKey string
	Store                                          Store
	// Replica names this process in the shared token fetch.
	Replica string
	// APIBase replaces DefaultAPIBase in every API URL.
	APIBase string
	// HTTPTimeout bounds each API call; zero means DefaultHTTPTimeout.
	HTTPTimeout time.Duration
	// MediaTimeout bounds the download of one inbound file
	// (wecom.media.timeout); zero means wecom.DefaultMediaTimeout.
	MediaTimeout time.Duration
	// MediaMaxBytes caps one inbound file (wecom.media.max_bytes); zero
	// means wecom.DefaultMediaMaxBytes.
	MediaMaxBytes int64
	// Clock paces the sends; nil means the wall clock.
	Clock Clock
	// Now is the clock callback timestamps are checked against; nil means
	// time.Now.
	Now    func() time.Time
	Logger *slog.Logger
	// Hosts are where media may be fetched from (wecom.allowed_hosts):
	// media/get goes to APIBase, whose host must be listed. Nil means
	// wecom.DefaultAllowedHosts.
	Hosts *wecom.AllowedHosts
}

// Channel is the self-built app's bot.Channel.
type Channel struct {
	corpID  string
	agentID int64
	crypter *wecom.Crypter
	store   Store
	api     *api
	media   mediaLimits
	pace    *pacer
	clock   Clock
	now     func() time.Time
	log     *slog.Logger
	replica string

	// life ends with Close: the fetches and receives of messages with
	// files, which outlive their callbacks.
	life       context.Context
	stop       context.CancelFunc
	background sync.WaitGroup
}

var (
	_ bot.Channel  = (*Channel)(nil)
	_ bot.Approver = (*Channel)(nil)
)

// New checks the credentials and returns the channel. It sets
// silenceper/wechat's process-wide HTTP client (with HTTPTimeout) and, with
// APIBase, its URL rewriting: one app per process.
func New(o Options) (*Channel, error) {
	if o.Store == nil {
		return nil, errors.New("wecom app channel: needs a store")
	}
	if o.CorpID == "" || o.Secret == "" {
		return nil, errors.New("wecom app channel: wecom.app.corp_id and wecom.app.secret must be set")
	}
	agentID, err := strconv.ParseInt(o.AgentID, 10, 64)
	if err != nil || agentID <= 0 {
		return nil, fmt.Errorf("wecom app channel: wecom.app.agent_id %q is not the app's numeric AgentId", o.AgentID)
	}
	cr, err := wecom.NewCrypter(o.Token, o.EncodingAESKey, o.CorpID)
	if err != nil {
		return nil, fmt.Errorf("wecom app channel: %w", err)
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Clock == nil {
		o.Clock = wallClock{}
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.HTTPTimeout <= 0 {
		o.HTTPTimeout = DefaultHTTPTimeout
	}
	if o.APIBase == "" {
		o.APIBase = DefaultAPIBase
	}
	if o.MediaTimeout <= 0 {
		o.MediaTimeout = wecom.DefaultMediaTimeout
	}
	if o.MediaMaxBytes <= 0 {
		o.MediaMaxBytes = wecom.DefaultMediaMaxBytes
	}
	if o.Replica == "" {
		o.Replica = wecom.RandomHex(6)
	}
	log := o.Logger.With("channel", Name)
	configureHTTP(o.APIBase, o.HTTPTimeout)
	tc := &tokenCache{store: o.Store, owner: o.Replica, log: log}
	if o.Hosts == nil {
		if o.Hosts, err = wecom.NewAllowedHosts(wecom.DefaultAllowedHosts...); err != nil {
			return nil, err
		}
	}
	a, err := newAPI(o.CorpID, o.Secret, agentID, o.APIBase, tc, o.Hosts.Client(0), log)
	if err != nil {
		return nil, err
	}
	life, stop := context.WithCancel(context.Background())
	return &Channel{corpID: o.CorpID, agentID: agentID, crypter: cr, store: o.Store, api: a,
		media: mediaLimits{Timeout: o.MediaTimeout, MaxBytes: o.MediaMaxBytes},
		pace:  &pacer{store: o.Store, clock: o.Clock, agentID: o.AgentID, log: log}, clock: o.Clock, now: o.Now, log: log,
		replica: o.Replica, life: life, stop: stop}, nil
}

// Name returns the constant Name: queued messages carry it, so it never
// changes between releases.
func (c *Channel) Name() string { return Name }

// CardOptions adds nothing: the answer is split for the app's markdown cap
// when it is sent.
func (c *Channel) CardOptions() []cards.Option { return nil }

// Show sends r as markdown messages. A waiting reply (the thinking
// placeholder, a queue position) is not sent: an app message cannot be
// edited, so each would stay in the chat, and queue positions change
// often; the progress card comes when the turn starts. A finished reply
// goes out once, and never after the turn's own end.
func (c *Channel) Show(ctx context.Context, r bot.Reply) (bool, error) {
	user := r.Conversation.ID // an app conversation is its user's
	switch r.State {
	case bot.ReplyWaiting:
		return true, nil
	case bot.ReplyFinished:
		first, err := c.store.ClaimFinish(ctx, r.To.Stream)
		if err != nil {
			return false, fmt.Errorf("show reply %s: %w", r.To.Stream, err)
		}
		if !first {
			return false, nil
		}
	}
	if r.Card == nil {
		return true, c.sendParts(ctx, user, cards.SplitMarkdown(r.Text, wecom.AppMarkdownMaxBytes))
	}
	c.closeCard(ctx, user, r.To.Stream, r.Card)
	return true, c.sendParts(ctx, user, r.Card.Markdown(wecom.AppMarkdownMaxBytes))
}

// Present opens the presentation of a turn that starts now.
func (c *Channel) Present(t bot.Turn) bot.Presentation {
	return bot.Present(&presenter{c: c, t: t, user: t.Conversation.ID, opened: make(chan struct{}),
		log: c.log.With("conv", t.Conversation, "msgid", t.MsgID, "stream", t.To.Stream)})
}

// sendAttempts bounds the tries of one message: a send that failed for a
// reason other than the token (the network, WeCom's 5xx) is tried again.
const sendAttempts = 3

// sendParts sends each part as a markdown message, in order and paced.
func (c *Channel) sendParts(ctx context.Context, user string, parts []string) error {
	for i, p := range parts {
		if strings.TrimSpace(p) == "" {
			continue
		}
		if err := c.sendOne(ctx, user, p); err != nil {
			return fmt.Errorf("send part %d of %d: %w", i+1, len(parts), err)
		}
	}
	return nil
}

func (c *Channel) sendOne(ctx context.Context, user, content string) error {
	var err error
	for try := range sendAttempts {
		if err = c.pace.wait(ctx, user); err != nil {
			return err
		}
		if err = c.api.sendMarkdown(ctx, user, content); err == nil {
			return nil
		}
		var ae *wecom.APIError
		if errors.As(err, &ae) {
			return err // WeCom refused this message; another try would be refused too
		}
		c.log.Warn("send markdown failed; trying again", "user", user, "try", try+1, "err", err)
	}
	return err
}
