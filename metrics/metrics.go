package metrics

import (
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/wecodex/wecodex/bot"
)

// Metrics is the Prometheus adapter of bot.Observer, and the counters of
// what the engine does not see, which cmd/wecodex reports to it directly:
// platform callbacks, agent restarts, Redis errors and the long connection.
type Metrics struct {
	turns         *prometheus.CounterVec
	turnDuration  prometheus.Histogram
	firstProgress prometheus.Histogram
	queueDepth    prometheus.Gauge
	callbacks     *prometheus.CounterVec
	callbackTime  *prometheus.HistogramVec
	restarts      prometheus.Counter
	longconn      prometheus.Gauge
	approvals     *prometheus.CounterVec
	redisErrors   *prometheus.CounterVec
	scheduleRuns  *prometheus.CounterVec // schedules.go
	triggers      *prometheus.CounterVec
	tokens        *prometheus.CounterVec
	limited       *prometheus.CounterVec

	mu    sync.Mutex
	depth map[string]int // conversation → messages waiting, summed into queueDepth
}

var _ bot.Observer = (*Metrics)(nil)

// Turns last from seconds to the 30-minute agent.turn_timeout; first
// progress is expected within seconds.
var (
	turnBuckets     = []float64{1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1200, 1800}
	progressBuckets = []float64{0.25, 0.5, 1, 2, 3, 5, 10, 20, 30, 60}
)

// New registers wecodex's metrics on reg.
func New(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		turns: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "wecodex_turns_total", Help: "Agent turns run on this replica, by how they ended.",
		}, []string{"outcome"}),
		turnDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "wecodex_turn_duration_seconds", Help: "How long agent turns ran, from taken off the queue to ended.", Buckets: turnBuckets,
		}),
		firstProgress: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "wecodex_first_progress_seconds", Help: "From a message received to the first card frame showing what the agent sent.", Buckets: progressBuckets,
		}),
		queueDepth: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "wecodex_queue_depth", Help: "Messages waiting behind the turns this replica runs; sum over replicas for the total.",
		}),
		callbacks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "wecodex_callbacks_total", Help: "Platform callbacks answered, by channel and result (ok, rejected, error).",
		}, []string{"channel", "result"}),
		callbackTime: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "wecodex_callback_duration_seconds", Help: "How long answering a platform callback took (WeCom waits at most 5 s).",
			Buckets: []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5},
		}, []string{"channel"}),
		restarts: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "wecodex_agent_restarts_total", Help: "Times the agent process was started again after it died or hung.",
		}),
		longconn: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "wecodex_longconn_connected", Help: "1 while this replica's WeCom long connection is up, else 0.",
		}),
		approvals: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "wecodex_approvals_total", Help: "Permission requests of the agent, by decision.",
		}, []string{"decision"}),
		redisErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "wecodex_redis_errors_total", Help: "Redis commands that failed, by command.",
		}, []string{"op"}),
		tokens: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "wecodex_tokens_total", Help: "Model tokens the turns run on this replica used, by kind (input, cached_input, output, reasoning).",
		}, []string{"kind"}),
		limited: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "wecodex_limited_total", Help: "Messages refused because their user reached a limit, by limit (limits.* key).",
		}, []string{"limit"}),
		depth: make(map[string]int),
	}
	m.scheduleRuns, m.triggers = scheduleCounters()
	for _, c := range []prometheus.Collector{m.turns, m.turnDuration, m.firstProgress, m.queueDepth, m.callbacks,
		m.callbackTime, m.restarts, m.longconn, m.approvals, m.redisErrors, m.scheduleRuns, m.triggers, m.tokens, m.limited} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("register metric: %w", err)
		}
	}
	// Every outcome is exported from the start, so a rate over it is defined
	// before the first turn of each kind.
	for _, o := range []bot.Outcome{bot.OutcomeFinished, bot.OutcomeFailed, bot.OutcomeCancelled, bot.OutcomeTimedOut} {
		m.turns.WithLabelValues(string(o))
	}
	for _, l := range []string{bot.LimitTurns, bot.LimitTokens} {
		m.limited.WithLabelValues(l)
	}
	return m, nil
}

// Handler serves g's metrics in the Prometheus text format.
func Handler(g prometheus.Gatherer) http.Handler {
	return promhttp.HandlerFor(g, promhttp.HandlerOpts{})
}

func (m *Metrics) TurnEnded(o bot.Outcome, d time.Duration) {
	m.turns.WithLabelValues(string(o)).Inc()
	m.turnDuration.Observe(d.Seconds())
}

func (m *Metrics) FirstProgress(d time.Duration) { m.firstProgress.Observe(d.Seconds()) }

func (m *Metrics) QueueDepth(conv string, waiting int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if waiting <= 0 {
		delete(m.depth, conv)
	} else {
		m.depth[conv] = waiting
	}
	sum := 0
	for _, n := range m.depth {
		sum += n
	}
	m.queueDepth.Set(float64(sum))
}

// Callback counts one platform callback a channel answered, by its result
// (bot.CallbackOK, bot.CallbackRejected, bot.CallbackError).
func (m *Metrics) Callback(channel, result string, d time.Duration) {
	m.callbacks.WithLabelValues(channel, result).Inc()
	m.callbackTime.WithLabelValues(channel).Observe(d.Seconds())
}

// AgentRestarted counts a start of the agent process after its first (it
// died, hung, or was killed).
func (m *Metrics) AgentRestarted() { m.restarts.Inc() }

// RedisError counts one failed store operation (op is the command).
func (m *Metrics) RedisError(op string) { m.redisErrors.WithLabelValues(op).Inc() }

func (m *Metrics) Approval(d string) { m.approvals.WithLabelValues(d).Inc() }

func (m *Metrics) Tokens(kind string, n int64) { m.tokens.WithLabelValues(kind).Add(float64(n)) }

func (m *Metrics) Limited(limit string) { m.limited.WithLabelValues(limit).Inc() }

// LongConnConnected says whether this replica's long connection is up:
// subscribed, which only the replica holding the lease ever is.
func (m *Metrics) LongConnConnected(up bool) {
	v := 0.0
	if up {
		v = 1
	}
	m.longconn.Set(v)
}
