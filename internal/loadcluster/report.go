package main

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
)

// report is what a run found.
type report struct {
	outcomes []outcome
	order    map[int][]int // per conversation, message indexes in the order they ran
	faults   []string
	took     time.Duration
	load     string

	once, lost, duplicated, outOfOrder int
	// stopped are lost with a killed replica, visibly: the card says the
	// server stopped before it finished and asks for the message again
	// (a message whose replica died twice; see bot runLostFirst).
	stopped int
	// rerun are answered once after running once more on the replica
	// that took over from a killed one (agent.rerun_orphaned: once).
	rerun int
}

// textServerLost is the end of bot's textServerLost, on the card of a turn
// whose replica died.
const textServerLost = "stopped before it finished. Send the message again."

// textRerun is the end of bot's textServerLostRerun, on the card of a
// message that runs once more.
const textRerun = "stopped before it finished. It runs once more."

func (r *report) tally(msgs int) {
	r.once, r.lost, r.duplicated, r.outOfOrder, r.stopped, r.rerun = 0, 0, 0, 0, 0, 0
	for _, o := range r.outcomes {
		if strings.Contains(o.final, textRerun) {
			r.rerun++
		}
		switch n := o.onCard + o.posted; {
		case o.followErr == nil && n == 0 && strings.Contains(o.final, textServerLost):
			r.stopped++
		case n == 0 || o.followErr != nil:
			r.lost++
		case n > 1 || o.streams > 1:
			r.duplicated++
		default:
			r.once++
		}
	}
	want := make([]int, msgs)
	for k := range want {
		want[k] = k
	}
	convs := map[int]bool{}
	for _, o := range r.outcomes {
		convs[o.conv] = true
	}
	for c := range convs {
		if !slices.Equal(r.order[c], want) {
			r.outOfOrder++
		}
	}
}

func (r *report) ok() bool {
	return r.lost == 0 && r.stopped == 0 && r.duplicated == 0 && r.outOfOrder == 0
}

func (r *report) print(o options) {
	r.tally(o.msgs)
	for _, f := range r.faults {
		fmt.Println("fault:", f)
	}
	var first, done []time.Duration
	redelivered := 0
	for _, x := range r.outcomes {
		if x.first > 0 {
			first = append(first, x.first)
		}
		if x.followErr == nil {
			done = append(done, x.done)
		}
		redelivered += x.redelivers
	}
	n := len(r.outcomes)
	fmt.Printf("\nmessages %d (%d delivered twice): answered exactly once %d, lost %d (%d silently, %d with the killed replica's turns, their cards asking for the message again), duplicated %d (goal 0 lost, 0 duplicated)\n",
		n, redelivered, r.once, r.lost+r.stopped, r.lost, r.stopped, r.duplicated)
	fmt.Printf("run once more after their replica was killed %d (each counted above by how it ended)\n", r.rerun)
	fmt.Printf("conversations out of order %d of %d (goal 0)\n", r.outOfOrder, o.conversations)
	fmt.Printf("first progress p50 %.2f s p99 %.2f s; finish p50 %.2f s p99 %.2f s (from each message's callback; later messages wait for earlier ones)\n",
		pct(first, 50), pct(first, 99), pct(done, 50), pct(done, 99))
	fmt.Printf("turns per second %.2f (%d turns in %.1f s, first callback to last finished card)\n",
		float64(r.once+r.duplicated)/r.took.Seconds(), r.once+r.duplicated, r.took.Seconds())
	fmt.Printf("load average after: %s\n", r.load)
	shown := 0
	for _, x := range r.outcomes {
		if x.onCard+x.posted == 1 && x.streams <= 1 && x.followErr == nil {
			continue
		}
		if shown++; shown > 10 {
			break
		}
		fmt.Printf("  %s: on card %d, posted %d, streams %d, err %v, card %.300q\n", token(x.conv, x.k), x.onCard, x.posted, x.streams, x.followErr, x.final)
	}
	for c, got := range r.order {
		if len(got) != o.msgs || !sorted(got) {
			if shown++; shown > 20 {
				break
			}
			fmt.Printf("  conversation %d ran its messages in the order %v\n", c, got)
		}
	}
}

func sorted(v []int) bool { return sort.IntsAreSorted(v) }

// pct is the p-th percentile (nearest rank) in seconds.
func pct(d []time.Duration, p int) float64 {
	if len(d) == 0 {
		return 0
	}
	v := slices.Clone(d)
	slices.Sort(v)
	i := (p*len(v) + 99) / 100
	return v[max(i-1, 0)].Seconds()
}
