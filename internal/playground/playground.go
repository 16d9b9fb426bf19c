package playground

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/wecodex/wecodex/internal/wecomtest"
)

// Path is where the playground is served.
const Path = "/playground"

// DefaultRefreshEvery is how often a running stream is refreshed: often
// enough that the card reads as live.
const DefaultRefreshEvery = 300 * time.Millisecond

// maxPromptBytes caps a message typed on the page; WeCom's own cap on a text
// message is lower.
const maxPromptBytes = 16 << 10

// Config says which bot endpoint the playground plays WeCom for, and as whom.
type Config struct {
	// Endpoint is the bot's AI-bot webhook URL, e.g.
	// http://127.0.0.1:8080/wecom/aibot.
	Endpoint string
	// Token and EncodingAESKey are the bot's wecom.aibot credentials: the
	// playground signs and encrypts with them as WeCom would.
	Token, EncodingAESKey string
	// AIBotID is put in every callback; default "playground". In long-
	// connection mode it is the bot_id the bot must subscribe with.
	AIBotID string
	// LongConn plays WeCom's long-connection server instead of calling
	// Endpoint: the bot dials WSURL and subscribes with AIBotID and Secret.
	LongConn bool
	Secret   string
	// User is the WeCom userid every message is sent as.
	User string
	// RefreshEvery is the refresh interval; default DefaultRefreshEvery.
	RefreshEvery time.Duration
	// AllowRemote serves clients that are not on loopback, under any Host.
	// Off by default: whoever reaches the page drives the agent as User.
	AllowRemote bool
	// Logger gets one line per message sent and per failure; nil discards.
	Logger *slog.Logger
}

// Playground is the page and its WeCom-playing backend. Make it with New,
// serve Handler under Path, and Close it after the HTTP server shut down.
type Playground struct {
	cfg   Config
	sim   *wecomtest.Sim
	urls  *wecomtest.ResponseURLServer
	lc    *longConn // in long-connection mode, instead of sim and urls
	media *wecomtest.MediaServer
	// mediaKey encrypts attached files in webhook mode (the bot's
	// EncodingAESKey); the long connection gives each file its own.
	mediaKey []byte
	board    *board
	log      *slog.Logger

	ctx    context.Context // ends at Close or server shutdown: stops the streams being followed and the event streams
	cancel context.CancelFunc
	wg     sync.WaitGroup
	mux    *http.ServeMux

	watchMu sync.Mutex
	watched map[*http.Server]bool
}

// New starts the response_url server and returns the playground. It sends
// nothing until a message is typed.
func New(cfg Config) (*Playground, error) {
	if cfg.User == "" {
		return nil, errors.New("playground: no user (playground.user)")
	}
	if cfg.AIBotID == "" {
		cfg.AIBotID = "playground"
	}
	if cfg.RefreshEvery <= 0 {
		cfg.RefreshEvery = DefaultRefreshEvery
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	p := &Playground{cfg: cfg, board: newBoard(), log: log.With("component", "playground"), watched: map[*http.Server]bool{}}
	p.board.commands = !cfg.LongConn
	p.ctx, p.cancel = context.WithCancel(context.Background())
	if cfg.LongConn {
		if cfg.Secret == "" {
			return nil, errors.New("playground: no secret for the long connection (wecom.aibot.secret)")
		}
		p.lc = newLongConn(cfg.AIBotID, cfg.Secret)
		p.media = wecomtest.NewMediaServer(nil)
		p.wg.Add(1)
		go func() { defer p.wg.Done(); p.lc.follow(p.ctx, p.board) }()
		p.routes()
		return p, nil
	}
	urls, err := wecomtest.NewResponseURLServer(p.onPost)
	if err != nil {
		return nil, fmt.Errorf("playground: %w", err)
	}
	// The bot is this process or a neighbour: never go through a proxy.
	client := &http.Client{Transport: &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 8}}
	sim, err := wecomtest.New(wecomtest.Config{
		URL: cfg.Endpoint, Token: cfg.Token, EncodingAESKey: cfg.EncodingAESKey, AIBotID: cfg.AIBotID,
		ResponseURLs: urls, Client: client, TimeoutRetries: wecomtest.TimeoutRetries,
	})
	if err != nil {
		_ = urls.Close()
		return nil, fmt.Errorf("playground: %w", err)
	}
	p.sim, p.urls = sim, urls
	p.media, p.mediaKey = wecomtest.NewMediaServer(nil), mediaKey(cfg.EncodingAESKey)
	p.routes()
	return p, nil
}

func (p *Playground) routes() {
	p.mux = http.NewServeMux()
	p.mux.HandleFunc("GET "+Path, p.serveIndex)
	p.mux.HandleFunc("GET "+Path+"/{$}", p.serveIndex)
	p.mux.Handle("GET "+Path+"/static/", http.StripPrefix(Path, http.FileServerFS(staticFS)))
	p.mux.HandleFunc("GET "+Path+"/events", p.serveEvents)
	p.mux.HandleFunc("POST "+Path+"/send", p.serveSend)
	p.mux.HandleFunc("POST "+Path+"/click", p.serveClick)
	p.mux.HandleFunc("POST "+Path+"/attach", p.serveAttach)
}

// WSURL is the long-connection server's ws:// URL on loopback, for
// wecom.aibot.ws_url; "" outside long-connection mode.
func (p *Playground) WSURL() string {
	if p.lc == nil {
		return ""
	}
	return p.lc.srv.URL()
}

// Handler serves the page, its assets, /events (server-sent card updates)
// and /send, all under Path.
func (p *Playground) Handler() http.Handler {
	// Browsers send Sec-Fetch-Site or Origin with a POST: a page on another
	// origin cannot make a visitor's browser drive the agent.
	guarded := http.NewCrossOriginProtection().Handler(p.mux)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.watchShutdown(r)
		if !p.cfg.AllowRemote && !fromLoopback(r) {
			http.Error(w, "the playground only answers on loopback (it drives the agent as "+p.cfg.User+")", http.StatusForbidden)
			return
		}
		// Against DNS rebinding: a foreign page whose name was made to
		// resolve to 127.0.0.1 reaches us from loopback, but under its own
		// Host. RemoteAddr is loopback for anything behind a local proxy too.
		if !p.cfg.AllowRemote && !loopbackHost(r.Host) {
			http.Error(w, "the playground only answers to http://127.0.0.1, localhost or [::1], not "+strconv.Quote(r.Host), http.StatusMisdirectedRequest)
			return
		}
		guarded.ServeHTTP(w, r)
	})
}

// watchShutdown ends the playground's work when the server serving it starts
// shutting down: an open page's event stream would otherwise hold a graceful
// shutdown for its whole timeout, since http.Server.Shutdown waits for
// active requests without cancelling them.
func (p *Playground) watchShutdown(r *http.Request) {
	srv, ok := r.Context().Value(http.ServerContextKey).(*http.Server)
	if !ok {
		return
	}
	p.watchMu.Lock()
	defer p.watchMu.Unlock()
	if !p.watched[srv] {
		p.watched[srv] = true
		srv.RegisterOnShutdown(p.cancel)
	}
}

// Close stops following streams, waits for the goroutines that did, and
// stops the response_url server.
func (p *Playground) Close() error {
	p.cancel()
	p.wg.Wait()
	p.media.Close()
	if p.lc != nil {
		p.lc.close()
		return nil
	}
	return p.urls.Close()
}

// Send plays one message typed on the page: it starts its card and delivers
// it in the background, returning the card's id (the message's msgid).
func (p *Playground) Send(text string) (string, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return "", errors.New("the message is empty")
	}
	if len(text) > maxPromptBytes {
		return "", fmt.Errorf("the message is longer than %d bytes", maxPromptBytes)
	}
	return p.start(text, outgoing{Text: text})
}

// start puts a card titled label on the board and plays o in the
// background.
func (p *Playground) start(label string, o outgoing) (string, error) {
	if p.ctx.Err() != nil {
		return "", errors.New("the playground is shutting down")
	}
	id := newMsgID()
	p.board.add(id, label)
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		p.play(id, o)
	}()
	return id, nil
}

// play sends the message and follows its stream to the end, as WeCom does.
func (p *Playground) play(id string, o outgoing) {
	log := p.log.With("msgid", id)
	if p.lc != nil {
		if err := p.lc.push(p.ctx, o.longConn(id, p.cfg.User)); err != nil {
			p.fail(log, id, "push the message over the long connection", err)
			return
		}
		log.Info("message pushed over the long connection")
		return
	}
	st, err := p.sim.Send(p.ctx, o.webhook(id, p.cfg.User))
	if err != nil {
		p.fail(log, id, "send the message to the bot", err)
		return
	}
	log.Info("message sent", "stream", st.ID, "finish", st.First.Finish)
	p.board.frame(id, st.First.Content, st.First.Finish)
	last, err := p.sim.Follow(p.ctx, st.ID, p.cfg.RefreshEvery, func(f wecomtest.Frame) {
		p.board.frame(id, f.Content, f.Finish)
	})
	if err != nil {
		p.fail(log, id, "refresh the stream", err)
		return
	}
	p.board.frame(id, last.Content, last.Finish)
}

func (p *Playground) fail(log *slog.Logger, id, what string, err error) {
	if p.ctx.Err() != nil {
		return // shutting down: nobody is watching
	}
	log.Warn("playground could not "+what, "err", err)
	msg := "could not " + what + ": " + err.Error()
	var se *wecomtest.StatusError
	if errors.As(err, &se) && se.Status == http.StatusNotFound {
		msg += " (is the AI-bot webhook served at " + p.cfg.Endpoint + "?)"
	}
	p.board.update(id, func(a *answer) { a.problem = msg })
}

// onPost shows a continuation the bot sent to a message's response_url.
func (p *Playground) onPost(post wecomtest.Post) {
	p.board.update(post.MsgID, func(a *answer) {
		switch {
		case !post.Accepted:
			a.refused++
		case post.Message.Markdown != nil:
			a.posts = append(a.posts, post.Message.Markdown.Content)
		default:
			a.posts = append(a.posts, "_(a template card was sent; the playground shows markdown only)_")
		}
	})
}

func newMsgID() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return "PG" + hex.EncodeToString(b)
}
