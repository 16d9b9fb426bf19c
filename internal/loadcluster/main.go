// Command loadcluster is scale-out with faults, measured: 3 `wecodex serve`
// replicas on one Redis Cluster (scripts/with-redis-topologies.sh starts it
// and exports REDIS_CLUSTER_ADDRS) behind a round-robin balancer, the real
// Codex on the scripted model, and WeCom played by internal/wecomtest's
// simulator: C conversations × M messages over the webhook, each message's
// stream followed by refresh pulls, WeCom's redeliveries for a share of
// the messages. Mid-run one replica is drained (SIGTERM) and another killed
// (SIGKILL); each comes back once it is gone, as a Deployment's pods do.
//
// It reports messages answered exactly once, lost and duplicated (from
// what WeCom received: each stream's finished frame and every response_url
// post), whether each conversation's messages ran in the order sent (from
// the order the model saw them), p50/p99 first progress and finish, and
// turns per second. Run it with `make load-cluster`.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

type options struct {
	bin, codex            string
	conversations, msgs   int
	redeliver             float64
	words                 int
	wordDelay, refresh    time.Duration
	ramp                  time.Duration
	noFaults              bool
	limit                 time.Duration
	drainTimeout, cluster string
}

func main() {
	var o options
	flag.StringVar(&o.bin, "wecodex", "bin/wecodex", "the wecodex binary")
	flag.StringVar(&o.codex, "codex", ".tools/codex/node_modules/.bin/codex", "the codex each replica runs")
	flag.IntVar(&o.conversations, "conversations", 60, "conversations (one user each)")
	flag.IntVar(&o.msgs, "messages", 3, "messages per conversation, sent one after another without waiting for answers")
	flag.Float64Var(&o.redeliver, "redeliver", 0.10, "share of messages WeCom delivers twice")
	flag.IntVar(&o.words, "words", 20, "words in each scripted answer")
	flag.DurationVar(&o.wordDelay, "word-delay", 40*time.Millisecond, "pause before each word of an answer, so turns are running when the faults come")
	flag.DurationVar(&o.refresh, "refresh", 300*time.Millisecond, "the simulator's refresh cadence")
	flag.DurationVar(&o.ramp, "ramp", 20*time.Second, "conversations start evenly over this long")
	flag.BoolVar(&o.noFaults, "no-faults", false, "neither drain nor kill a replica")
	flag.DurationVar(&o.limit, "timeout", 10*time.Minute, "give up after this long")
	flag.StringVar(&o.drainTimeout, "drain-timeout", "30s", "server.drain_timeout of each replica")
	flag.StringVar(&o.cluster, "cluster", os.Getenv("REDIS_CLUSTER_ADDRS"), "the Redis Cluster's nodes, comma-separated")
	flag.Parse()
	err := o.absPaths()
	if err == nil {
		err = run(o)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "loadcluster:", err)
		os.Exit(1)
	}
}

func (o *options) absPaths() error {
	if o.cluster == "" {
		return errors.New("no Redis Cluster: run it under scripts/with-redis-topologies.sh (make load-cluster) or pass -cluster")
	}
	for _, p := range []*string{&o.bin, &o.codex} {
		abs, err := filepath.Abs(*p)
		if err != nil {
			return err
		}
		*p = abs
	}
	return nil
}

func run(o options) error {
	ctx, cancel := context.WithTimeout(context.Background(), o.limit)
	defer cancel()
	c, err := newCluster(ctx, o)
	if err != nil {
		return err
	}
	defer c.close()
	fmt.Printf("load-cluster: 3 wecodex serve replicas on the Redis Cluster at %s behind a round-robin balancer; real Codex on the scripted model (%d words, %s apart)\n",
		o.cluster, o.words, o.wordDelay)
	fmt.Printf("%d conversations × %d messages over the webhook, started over %s, %.0f%% delivered twice; refreshes every %s\n",
		o.conversations, o.msgs, o.ramp, o.redeliver*100, o.refresh)
	fmt.Printf("load average before: %s\n", loadAvg())
	rep, err := c.drive(ctx)
	if err != nil {
		return err
	}
	rep.print(o)
	if !rep.ok() {
		return errors.New("a message was lost, duplicated or out of order")
	}
	return nil
}

// token names message k of conversation i in its text, so the model's
// requests and the cards can be matched to it.
func token(i, k int) string { return "msg-" + strconv.Itoa(i) + "-" + strconv.Itoa(k) }

// answerHead starts the scripted answer to the message with token t: it
// shows once on a card that answers the message once.
func answerHead(t string) string { return "Answer to " + t + ":" }

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}
