package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/configs"
	"github.com/wecodex/wecodex/metrics"
)

// telemetry is this process's metrics: the registry /metrics serves and the
// observer the engine, the channels and the store report to.
type telemetry struct {
	reg *prometheus.Registry
	obs *metrics.Metrics
}

func newTelemetry() (*telemetry, error) {
	reg := prometheus.NewRegistry()
	// The Go runtime and this process's CPU, memory and file descriptors,
	// beside wecodex's own.
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	obs, err := metrics.New(reg)
	if err != nil {
		return nil, err
	}
	return &telemetry{reg: reg, obs: obs}, nil
}

func (t *telemetry) handler() http.Handler { return metrics.Handler(t.reg) }

// internalMux is what metrics.addr serves: /metrics, and /debug/pprof when
// metrics.pprof is on.
func (t *telemetry) internalMux(withPprof bool) *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", t.handler())
	if withPprof {
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	}
	return mux
}

// serveInternal serves the internal mux on metrics.addr until the returned
// stop is called. A CPU profile takes 30 s by default, so this listener has
// no write timeout.
func (t *telemetry) serveInternal(cfg configs.MetricsConfig, log *slog.Logger) (stop func(), err error) {
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("listen on metrics.addr %s: %w", cfg.Addr, err)
	}
	srv := &http.Server{
		Handler:           t.internalMux(cfg.Pprof),
		ReadHeaderTimeout: readHeaderTimeout,
		IdleTimeout:       idleTimeout,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("serve metrics.addr", "err", err)
		}
	}()
	log.Info("metrics listening", "addr", ln.Addr().String(), "pprof", cfg.Pprof)
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		<-done
	}, nil
}

// observeCallbacks counts each request h answers as one callback of channel:
// ok for 2xx, rejected for 4xx (bad signature, too large, wrong method),
// error for the rest.
func observeCallbacks(channel string, obs *metrics.Metrics, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		h.ServeHTTP(sw, r)
		obs.Callback(channel, callbackResult(sw.status), time.Since(start))
	})
}

func callbackResult(status int) string {
	switch {
	case status < 400:
		return bot.CallbackOK
	case status < 500:
		return bot.CallbackRejected
	}
	return bot.CallbackError
}

// statusWriter remembers the status code written through it.
type statusWriter struct {
	http.ResponseWriter
	status int
	wrote  bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wrote {
		w.status, w.wrote = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	w.wrote = true
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection (deadlines, flush).
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
