package webhook_test

import (
	"context"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/bot/wecom"
	"github.com/wecodex/wecodex/bot/wecom/webhook"
)

// reportPercentiles adds p50 and p99 latency of the measured calls.
func reportPercentiles(b *testing.B, d []time.Duration) {
	if len(d) == 0 {
		return
	}
	slices.Sort(d)
	b.ReportMetric(float64(d[len(d)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(d[len(d)*99/100].Microseconds()), "p99-µs")
}

// BenchmarkReceive measures what a message callback costs the engine on real
// Redis: dedupe, access, placeholder frame, enqueue. (Run is not started, so
// no turn competes for the cores.)
func BenchmarkReceive(b *testing.B) {
	r := benchReplica(b)
	ctx := context.Background()
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		m := bot.Message{ID: "m" + strconv.Itoa(i), Conversation: wecom.SingleChat("alice" + strconv.Itoa(i)), User: "alice" + strconv.Itoa(i), Text: "hello"}
		start := time.Now()
		if _, err := r.e.Receive(ctx, m); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	reportPercentiles(b, lat)
}

// BenchmarkFrame measures a refresh answered from Redis.
func BenchmarkFrame(b *testing.B) {
	r := benchReplica(b)
	ctx := context.Background()
	f, err := r.e.Receive(ctx, bot.Message{ID: "m", Conversation: wecom.SingleChat("alice"), User: "alice", Text: "hello"})
	if err != nil {
		b.Fatal(err)
	}
	alice := webhook.Asker{Conversation: wecom.SingleChat("alice"), User: "alice"}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		if _, ok, err := r.e.Frame(ctx, f.StreamID, alice); err != nil || !ok {
			b.Fatal(ok, err)
		}
		lat = append(lat, time.Since(start))
	}
	reportPercentiles(b, lat)
}
