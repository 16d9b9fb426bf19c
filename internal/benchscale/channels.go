package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/wecodex/wecodex/internal/serveproc"
	"github.com/wecodex/wecodex/internal/wecomtest"
)

// webhook runs every N on one webhook replica, after one warm-up turn
// (serve starts its app-server with the first turn; that start is no
// user's wait at load).
func (e benchEnv) webhook() (map[int]result, error) {
	ctx, cancel := within()
	defer cancel()
	p, err := serveproc.Start(ctx, "webhook replica", e.o.bin, filepath.Join(e.dir, "webhook"), e.config("webhook", ""), e.codex.Env())
	if err != nil {
		return nil, err
	}
	defer p.Stop(time.Minute)
	sim, err := wecomtest.New(wecomtest.Config{URL: p.Base + "/wecom/aibot", Token: serveproc.Token,
		EncodingAESKey: serveproc.AESKey, AIBotID: serveproc.BotID})
	if err != nil {
		return nil, err
	}
	return e.eachN(ctx, "webhook", p, func(ctx context.Context, us []string) (result, error) {
		return e.webhookRun(ctx, p, sim, us)
	})
}

// eachN runs one warm-up turn, then every N once, through run, printing
// each N's figures under the channel's name.
func (e benchEnv) eachN(ctx context.Context, channel string, p *serveproc.Proc, run func(context.Context, []string) (result, error)) (map[int]result, error) {
	if _, err := run(ctx, users(channel+"-warmup", 1)); err != nil {
		return nil, fmt.Errorf("warm-up: %w\n%s", err, p.Tail(20))
	}
	out := map[int]result{}
	for _, n := range e.o.ns {
		ctx, cancel := within()
		r, err := run(ctx, users(fmt.Sprintf("%s-n%d", channel, n), n))
		cancel()
		if err != nil {
			return nil, fmt.Errorf("run of %d conversations: %w; the server's last lines: %s", n, err, p.Tail(20))
		}
		out[n] = r
		fmt.Printf("%-8s N=%-3d first p99 %.2f s, finish p99 %.2f s, load %s\n", channel, n, pct(r.first, 99), pct(r.done, 99), r.load)
	}
	return out, nil
}

// webhookRun sends one message from each user at once and follows each
// stream at the simulator's cadence until it finishes.
func (e benchEnv) webhookRun(ctx context.Context, p *serveproc.Proc, sim *wecomtest.Sim, us []string) (result, error) {
	r := result{first: make([]time.Duration, len(us)), done: make([]time.Duration, len(us))}
	errs := make([]error, len(us))
	streams, starts := make([]string, len(us)), make([]time.Time, len(us))
	var wg sync.WaitGroup
	for i, u := range us {
		wg.Add(1)
		go func() {
			defer wg.Done()
			start := time.Now()
			st, err := sim.Send(ctx, wecomtest.Message{From: u, Text: "Write the long answer."})
			if err != nil {
				errs[i] = err
				return
			}
			streams[i], starts[i] = st.ID, start
			final, err := sim.Follow(ctx, st.ID, e.o.refresh, func(f wecomtest.Frame) {
				if r.first[i] == 0 && strings.Contains(f.Content, firstWords) {
					r.first[i] = time.Since(start)
				}
			})
			r.done[i] = time.Since(start)
			if err == nil && !strings.Contains(final.Content, e.answer) {
				err = fmt.Errorf("%s's finished card lacks the answer: %.300q", u, final.Content)
			}
			if err == nil && r.first[i] == 0 {
				r.first[i] = r.done[i] // the first frame with the answer was the last
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	r.load = serveproc.LoadAvg()
	r.started = turnsStarted(p, streams, starts)
	return r, errors.Join(errs...)
}

// turnsStarted is, for each stream, the time from its callback to the
// replica's "turn started" line for it.
func turnsStarted(p *serveproc.Proc, streams []string, starts []time.Time) []time.Duration {
	at := map[string]time.Time{}
	for _, l := range p.Lines("turn started") {
		s, _ := l["stream"].(string)
		ts, _ := l["time"].(string)
		if t, err := time.Parse(time.RFC3339Nano, ts); err == nil && s != "" {
			at[s] = t
		}
	}
	var out []time.Duration
	for i, s := range streams {
		if t, ok := at[s]; ok {
			out = append(out, t.Sub(starts[i]))
		}
	}
	return out
}

// longConn runs every N on one replica holding the long connection to the
// fake WeCom server, after one warm-up turn.
func (e benchEnv) longConn() (map[int]result, error) {
	ctx, cancel := within()
	defer cancel()
	var cl serveproc.Cleanup
	defer cl.Run()
	srv := wecomtest.NewLongConnServer(&cl, wecomtest.LongConnOptions{BotID: serveproc.BotID, Secret: serveproc.Secret})
	p, err := serveproc.Start(ctx, "long-connection replica", e.o.bin, filepath.Join(e.dir, "longconn"), e.config("longconn", srv.URL()), e.codex.Env())
	if err != nil {
		return nil, err
	}
	defer p.Stop(time.Minute)
	if _, err := p.WaitLog(ctx, "wecom long connection subscribed"); err != nil {
		return nil, err
	}
	return e.eachN(ctx, "longconn", p, func(ctx context.Context, us []string) (result, error) {
		return e.longConnRun(ctx, p, srv, us)
	})
}

// longConnRun pushes one message from each user at once and times the
// frames of each reply as they reach the server's socket.
func (e benchEnv) longConnRun(ctx context.Context, p *serveproc.Proc, srv *wecomtest.LongConnServer, us []string) (result, error) {
	r := result{first: make([]time.Duration, len(us)), done: make([]time.Duration, len(us))}
	errs := make([]error, len(us))
	streams, starts := make([]string, len(us)), make([]time.Time, len(us))
	from := len(srv.Records())
	var wg sync.WaitGroup
	for i, u := range us {
		wg.Add(1)
		go func() {
			defer wg.Done()
			start := time.Now()
			reqID, err := srv.PushMessage(wecomtest.LongConnMessage{UserID: u, Text: "Write the long answer."})
			if err != nil {
				errs[i] = err
				return
			}
			ofReply := func(r wecomtest.Record) bool {
				return r.Kind == wecomtest.KindRequest && r.Cmd == "aibot_respond_msg" && r.ReqID == reqID
			}
			first, err := srv.WaitFrom(ctx, from, func(r wecomtest.Record) bool {
				return ofReply(r) && strings.Contains(r.Stream().Content, firstWords)
			})
			if err != nil {
				errs[i] = fmt.Errorf("%s: %w", u, err)
				return
			}
			final, err := srv.WaitFrom(ctx, from, func(r wecomtest.Record) bool { return ofReply(r) && r.Stream().Finish })
			if err != nil {
				errs[i] = fmt.Errorf("%s: %w", u, err)
				return
			}
			r.first[i], r.done[i] = first.At.Sub(start), final.At.Sub(start)
			streams[i], starts[i] = first.Stream().ID, start
			if !strings.Contains(final.Stream().Content, e.answer) {
				errs[i] = fmt.Errorf("%s's finished card lacks the answer: %.300q", u, final.Stream().Content)
			}
		}()
	}
	wg.Wait()
	r.load = serveproc.LoadAvg()
	r.started = turnsStarted(p, streams, starts)
	return r, errors.Join(errs...)
}
