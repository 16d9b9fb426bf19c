package main

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/wecodex/wecodex/internal/wecomtest"
)

// outcome is what WeCom received for one message.
type outcome struct {
	conv, k    int
	first      time.Duration // callback → first frame with the answer; 0: never
	done       time.Duration // callback → finished frame
	onCard     int           // times the answer's head shows on the finished card
	posted     int           // response_url posts carrying the answer's head
	streams    int           // distinct streams its deliveries were answered on
	final      string        // the finished card, for the report of a bad one
	followErr  error
	redelivers int
}

// drive runs every conversation, the faults beside them, and gathers what
// WeCom received.
func (c *cluster) drive(ctx context.Context) (*report, error) {
	o := c.o
	outs := make([][]outcome, o.conversations)
	var wg sync.WaitGroup
	start := time.Now()
	faults := make(chan string, 8)
	faultsDone := make(chan struct{})
	go func() {
		defer close(faultsDone)
		if !o.noFaults {
			c.faults(ctx, faults)
		}
		close(faults)
	}()
	gap := o.ramp / time.Duration(max(o.conversations, 1))
	for i := 0; i < o.conversations; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i] = c.conversation(ctx, i)
		}()
		select {
		case <-time.After(gap):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	wg.Wait()
	took := time.Since(start)
	<-faultsDone
	rep := &report{took: took, load: loadAvg()}
	for f := range faults {
		rep.faults = append(rep.faults, f)
	}
	for _, conv := range outs {
		rep.outcomes = append(rep.outcomes, conv...)
	}
	c.mu.Lock()
	rep.order = map[int][]int{}
	for k, v := range c.seen {
		rep.order[k] = append([]int(nil), v...)
	}
	c.mu.Unlock()
	return rep, nil
}

// conversation sends its messages one after another (each once its
// callback is answered, as a user typing on does, without waiting for the
// answers), then follows every stream until it finishes.
func (c *cluster) conversation(ctx context.Context, i int) []outcome {
	o := c.o
	user := fmt.Sprintf("user-%02d", i)
	outs := make([]outcome, o.msgs)
	streams := make([]*wecomtest.Stream, o.msgs)
	sent := make([]time.Time, o.msgs)
	for k := range outs {
		outs[k] = outcome{conv: i, k: k}
		var opts []wecomtest.Option
		if redelivered(i, k, o) {
			opts = append(opts, wecomtest.WithRedeliveries(1))
			outs[k].redelivers = 1
		}
		sent[k] = time.Now()
		st, err := c.sim.Send(ctx, wecomtest.Message{From: user, Text: "Please answer " + token(i, k) + "."}, opts...)
		if err != nil {
			outs[k].followErr = err
			continue
		}
		streams[k] = st
		ids := map[string]bool{st.ID: true}
		for _, f := range st.Redelivered {
			ids[f.ID] = true
		}
		outs[k].streams = len(ids)
	}
	var wg sync.WaitGroup
	for k, st := range streams {
		if st == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.follow(ctx, st, sent[k], &outs[k])
		}()
	}
	wg.Wait()
	for k := range outs {
		head := answerHead(token(i, k))
		for _, p := range c.urls.Posts(streamMsgID(streams[k])) {
			if strings.Contains(string(p.Raw), head) {
				outs[k].posted++
			}
		}
	}
	return outs
}

// redelivered picks the messages WeCom delivers twice: every tenth one
// at the default share, spread over conversations and positions.
func redelivered(i, k int, o options) bool {
	if o.redeliver <= 0 {
		return false
	}
	every := int(1/o.redeliver + 0.5)
	return (i*o.msgs+k)%every == every-1
}

func streamMsgID(st *wecomtest.Stream) string {
	if st == nil {
		return ""
	}
	return st.Message.MsgID
}

func (c *cluster) follow(ctx context.Context, st *wecomtest.Stream, sent time.Time, out *outcome) {
	head := answerHead(token(out.conv, out.k))
	final, err := c.sim.Follow(ctx, st.ID, c.o.refresh, func(f wecomtest.Frame) {
		if out.first == 0 && strings.Contains(f.Content, head) {
			out.first = time.Since(sent)
		}
	})
	out.done = time.Since(sent)
	out.followErr, out.final = err, final.Content
	out.onCard = strings.Count(final.Content, head)
	if out.first == 0 && out.onCard > 0 {
		out.first = out.done
	}
}

// faults drains one replica a third into the ramp and kills another at two
// thirds, each replaced once it is gone, and says what it did.
func (c *cluster) faults(ctx context.Context, log chan<- string) {
	wait := func(d time.Duration) bool {
		select {
		case <-time.After(d):
			return true
		case <-ctx.Done():
			return false
		}
	}
	t0 := time.Now()
	if !wait(c.o.ramp / 3) {
		return
	}
	c.mu.Lock()
	drained := c.replicas[0]
	c.mu.Unlock()
	drained.Terminate()
	log <- fmt.Sprintf("%.1fs: SIGTERM %s (drain)", time.Since(t0).Seconds(), drained.Name)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		select {
		case <-drained.Exited():
		case <-ctx.Done():
			return
		}
		c.mu.Lock()
		c.replicas[0] = nil
		c.mu.Unlock()
		log <- fmt.Sprintf("%.1fs: %s exited after its drain; starting its replacement", time.Since(t0).Seconds(), drained.Name)
		if err := c.startReplica(ctx, 0); err != nil {
			log <- "replacing replica 1 failed: " + err.Error()
		}
	}()
	if !wait(c.o.ramp/3 - time.Since(t0) + c.o.ramp/3) {
		return
	}
	c.mu.Lock()
	killed := c.replicas[1]
	c.replicas[1] = nil
	c.mu.Unlock()
	killed.Kill()
	log <- fmt.Sprintf("%.1fs: SIGKILL %s and its app-server; starting its replacement", time.Since(t0).Seconds(), killed.Name)
	if err := c.startReplica(ctx, 1); err != nil {
		log <- "replacing replica 2 failed: " + err.Error()
	}
	wg.Wait()
}
