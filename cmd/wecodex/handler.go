package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"sync/atomic"
	"time"

	"github.com/wecodex/wecodex/configs"
	"github.com/wecodex/wecodex/schedule"
)

// pinger is what readiness needs from the store.
type pinger interface {
	Ping(ctx context.Context) error
}

// serverDeps is everything the HTTP handler is built from.
type serverDeps struct {
	Config   *configs.Config
	Redis    pinger
	LookPath func(file string) (string, error) // exec.LookPath
	Log      *slog.Logger
	// Channels are the configured channels: each endpoint is mounted at
	// its path, and /readyz lists each one's state.
	Channels []*channel
	// Metrics serves GET /metrics on this listener; nil when metrics.addr
	// serves it on a listener of its own.
	Metrics http.Handler
	// AgentWarnings lists what the agent warned about the machine it runs
	// on (Codex: bubblewrap missing, unknown model metadata); nil when the
	// agent reports none.
	AgentWarnings func() []string
	// Draining reports whether the server is shutting down (nil: never).
	Draining func() bool
	// Hooks serves POST /hooks/{name} (the triggers); nil: none.
	Hooks http.Handler
	// Schedules lists each schedule's next slot for /readyz; nil: none.
	Schedules func() []schedule.Slot
}

// newHandler builds the server's routes. The mux is returned so routes that
// need the listener's address (the playground) can be added once it listens.
func newHandler(d serverDeps) *http.ServeMux {
	mux := http.NewServeMux()
	for _, ch := range d.Channels {
		if ch.handler != nil {
			// Every method: a channel's endpoint answers the ones it does
			// not take itself (the AI bot: GET URL check, POST callbacks).
			mux.Handle(ch.path, ch.handler)
		}
	}
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok"))
	})
	mux.Handle("GET /readyz", &readiness{deps: d})
	if d.Hooks != nil {
		mux.Handle("POST /hooks/{name}", d.Hooks)
	}
	if d.Metrics != nil {
		mux.Handle("GET /metrics", d.Metrics)
	}
	return mux
}

// readinessTimeout bounds the Redis ping of one /readyz request, so a probe
// gets an answer even when Redis hangs.
const readinessTimeout = 2 * time.Second

// readiness answers /readyz: 200 when Redis answers, the agent's executable
// is found and every channel is ready, else 503 naming each problem and what
// to do.
type readiness struct {
	deps     serverDeps
	notReady atomic.Bool // last answer, so only changes are logged
}

type readyzBody struct {
	Ready    bool              `json:"ready"`
	Problems map[string]string `json:"problems,omitempty"`
	// Channels says how each chat channel reaches this server.
	Channels map[string]string `json:"channels"`
	// AgentWarnings are the agent's environment warnings, for an admin;
	// they do not make the server unready.
	AgentWarnings []string `json:"agent_warnings,omitempty"`
	// Schedules are this replica's view of each schedule's next slot.
	Schedules []schedule.Slot `json:"schedules,omitempty"`
}

func (h *readiness) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	channels, down := h.channels()
	problems, redisErr := h.check(r.Context(), down)
	body := readyzBody{Ready: len(problems) == 0, Problems: problems, Channels: channels}
	if h.deps.AgentWarnings != nil {
		body.AgentWarnings = h.deps.AgentWarnings()
	}
	if h.deps.Schedules != nil {
		body.Schedules = h.deps.Schedules()
	}
	status := http.StatusOK
	if !body.Ready {
		status = http.StatusServiceUnavailable
	}
	if was := h.notReady.Swap(!body.Ready); was != !body.Ready {
		if body.Ready {
			h.deps.Log.Info("ready")
		} else {
			// The driver's own error is for the log only: it can name
			// internal addresses and says nothing an admin can act on.
			h.deps.Log.Warn("not ready", "problems", problems, "redis_err", redisErr,
				"redis_addr", h.deps.Config.Redis.Addr, "channel_states", h.rawStates())
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

// check returns each problem in an admin's words (down: the channels not
// ready, with their states), and the Redis driver's error (for the log) when
// the ping failed.
func (h *readiness) check(ctx context.Context, down map[string]string) (map[string]string, error) {
	problems := map[string]string{}
	ctx, cancel := context.WithTimeout(ctx, readinessTimeout)
	defer cancel()
	redisErr := h.deps.Redis.Ping(ctx)
	if redisErr != nil {
		problems["redis"] = h.redisProblem()
	}
	if p := h.agentProblem(); p != "" {
		problems["agent"] = p
	}
	if h.deps.Draining != nil && h.deps.Draining() {
		problems["draining"] = "this server is shutting down: it finishes its running turns and takes no new ones; the other replicas take its messages"
	}
	for name, state := range down {
		problems[name] = state
	}
	if len(problems) == 0 {
		return nil, nil
	}
	return problems, redisErr
}

// redisProblem says which Redis does not answer and what to check.
func (h *readiness) redisProblem() string {
	addrs := h.deps.Config.Redis.Addrs()
	if len(addrs) == 0 {
		return "the embedded Redis does not answer: restart wecodex (the log has the error)"
	}
	// One wording for a refusal and a timeout: which of the two a ping meets
	// depends on how fast the driver's dial retries run, not on what is wrong.
	// No address: /readyz is answered to whoever reaches the listener, and
	// the admin has the address in redis.addr and in the log.
	return "Redis does not answer: check redis.addr and redis.password, " +
		"and that Redis is running and reachable from here (the log has the address and the error)"
}

// rawStates is each channel's own state, for the log.
func (h *readiness) rawStates() map[string]string {
	out := map[string]string{}
	for _, ch := range h.deps.Channels {
		_, out[ch.name] = ch.status()
	}
	return out
}

// Addresses a channel's state may quote from an error: a URL, an IP with
// or without its port, a name with its port.
var (
	urlInText  = regexp.MustCompile(`[a-zA-Z][a-zA-Z0-9+.-]*://[^\s"']+`)
	addrInText = regexp.MustCompile(`\[[0-9a-fA-F:.]+\](:\d+)?|\b\d{1,3}(\.\d{1,3}){3}(:\d+)?\b|\b[a-zA-Z0-9-]+(\.[a-zA-Z0-9-]+)*:\d{2,5}\b`)
)

// withoutAddresses is a state for /readyz: what a channel's error says,
// with every address it quotes replaced (the log has them).
func withoutAddresses(s string) string {
	s = urlInText.ReplaceAllString(s, "(address in the log)")
	return addrInText.ReplaceAllString(s, "(address in the log)")
}

// channels says where each configured channel stands, by name, and which
// of them are not ready. The AI bot, the bot's first channel, is listed as
// "off" when it is not configured, so a probe always finds it.
func (h *readiness) channels() (states, down map[string]string) {
	states, down = map[string]string{aibotName: "off"}, map[string]string{}
	for _, ch := range h.deps.Channels {
		ready, state := ch.status()
		state = withoutAddresses(state)
		states[ch.name] = state
		if !ready {
			down[ch.name] = state
		}
	}
	return states, down
}

// agentProblem says why the configured agent's executable cannot be started,
// or "" when it is found.
func (h *readiness) agentProblem() string {
	a := h.deps.Config.Agent
	var bin, fix string
	switch a.Kind {
	case configs.AgentACP:
		if len(a.ACP.Command) == 0 {
			return "agent.acp.command is empty"
		}
		bin, fix = a.ACP.Command[0], "install the agent or fix agent.acp.command"
	default:
		bin, fix = a.Codex.Bin, "install @openai/codex or set agent.codex.bin"
	}
	if _, err := h.deps.LookPath(bin); err != nil {
		if strings.ContainsRune(bin, '/') {
			return bin + " is not an executable file: " + fix
		}
		return bin + " not found in PATH: " + fix
	}
	return ""
}
