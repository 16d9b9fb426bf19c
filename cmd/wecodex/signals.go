package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// shutdown says how far serve must go toward stopping. drain ends at the
// first SIGTERM or SIGINT: take no new turns, let the running ones finish
// for up to server.drain_timeout. now ends at the second: stop at once. A
// third signal gets Go's default action and kills the process.
type shutdown struct {
	drain context.Context
	now   context.Context
}

// notifyShutdown turns SIGTERM and SIGINT into a shutdown; release stops
// listening. What each signal does is logged where it is done (serve's
// drain and shutdown lines).
func notifyShutdown() (shutdown, func()) {
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	drain, endDrain := context.WithCancel(context.Background())
	now, endNow := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer signal.Stop(ch)
		for first := true; ; first = false {
			select {
			case <-done:
				return
			case <-ch:
				if !first {
					endNow()
					return
				}
				endDrain()
			}
		}
	}()
	release := func() {
		close(done)
		endDrain()
		endNow()
	}
	return shutdown{drain: drain, now: now}, release
}
