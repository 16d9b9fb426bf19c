package longconn

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/wecodex/wecodex/internal/testenv"
	"github.com/wecodex/wecodex/internal/wecomtest"
)

// benchReplicas starts n replicas on one fake and one real Redis and
// returns them holder first.
func benchReplicas(b *testing.B, n int) (*wecomtest.LongConnServer, []*replica) {
	b.Helper()
	srv := wecomtest.NewLongConnServer(b, wecomtest.LongConnOptions{BotID: testBot, Secret: testSecret})
	prefix := testenv.Prefix(b, "longconn-bench")
	var rs []*replica
	for i := range n {
		rs = append(rs, startReplica(b, srv, prefix, fmt.Sprintf("R%d", i)))
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for {
		for i, r := range rs {
			if r.holding() && srv.Subscribed() != 0 {
				rs[0], rs[i] = rs[i], rs[0]
				return srv, rs
			}
		}
		select {
		case <-ctx.Done():
			b.Fatal("no replica holds the connection")
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// presentLatency presents frames one after another from r and measures how
// long each took to reach the fake's socket (recorded as a request).
func presentLatency(b *testing.B, srv *wecomtest.LongConnServer, r *replica) {
	reqID, err := srv.PushMessage(wecomtest.LongConnMessage{UserID: "zhangsan", Text: "q"})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	lat := make([]time.Duration, 0, b.N)
	seen := len(srv.Records())
	b.ResetTimer()
	for i := range b.N {
		content := fmt.Sprintf("<think>step %d</think>", i)
		start := time.Now()
		if shown, err := r.conn.Present(ctx, Snapshot{ReqID: reqID, StreamID: "st", ChatID: "zhangsan", Seq: int64(i + 1), Content: content}); err != nil || !shown {
			b.Fatalf("present: shown %v, %v", shown, err)
		}
		req, err := srv.WaitFrom(ctx, seen, func(x wecomtest.Record) bool {
			return x.Kind == wecomtest.KindRequest && x.ReqID == reqID && x.Stream().Content == content
		})
		if err != nil {
			b.Fatal(err)
		}
		lat = append(lat, req.At.Sub(start))
		ack, err := srv.WaitFrom(ctx, req.Seq, func(x wecomtest.Record) bool { return x.Kind == wecomtest.KindAck && x.ReqID == reqID })
		if err != nil {
			b.Fatal(err)
		}
		seen = ack.Seq
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}

// BenchmarkFrameToSocket: card change (Present) → the frame on WeCom's
// socket, on the holder and relayed through Redis from another replica.
func BenchmarkFrameToSocket(b *testing.B) {
	b.Run("holder", func(b *testing.B) {
		srv, rs := benchReplicas(b, 1)
		presentLatency(b, srv, rs[0])
	})
	b.Run("relayed", func(b *testing.B) {
		srv, rs := benchReplicas(b, 2)
		presentLatency(b, srv, rs[1])
	})
}

// BenchmarkFramesPerSecond20Streams: 20 streams on one connection, each
// presenting its next frame as soon as the previous one was acked (the
// per-req_id serialisation), b.N frames in all.
func BenchmarkFramesPerSecond20Streams(b *testing.B) {
	const streams = 20
	srv, rs := benchReplicas(b, 1)
	reqs := make([]string, streams)
	for i := range reqs {
		var err error
		if reqs[i], err = srv.PushMessage(wecomtest.LongConnMessage{UserID: "zhangsan", Text: "q"}); err != nil {
			b.Fatal(err)
		}
	}
	ctx := context.Background()
	per := max(1, b.N/streams)
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for _, reqID := range reqs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			seen := 0
			for i := range per {
				content := fmt.Sprintf("<think>%d</think>", i)
				if shown, err := rs[0].conn.Present(ctx, Snapshot{ReqID: reqID, StreamID: "st", ChatID: "zhangsan", Seq: int64(i + 1), Content: content}); err != nil || !shown {
					b.Errorf("present: shown %v, %v", shown, err)
					return
				}
				var sent int
				_, err := srv.WaitFrom(ctx, seen, func(x wecomtest.Record) bool {
					if x.Kind == wecomtest.KindRequest && x.ReqID == reqID && x.Stream().Content == content {
						sent = x.Seq
						return true
					}
					return false
				})
				if err != nil {
					b.Error(err)
					return
				}
				ack, err := srv.WaitFrom(ctx, sent, func(x wecomtest.Record) bool { return x.Kind == wecomtest.KindAck && x.ReqID == reqID })
				if err != nil {
					b.Error(err)
					return
				}
				seen = ack.Seq
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64(per*streams)/time.Since(start).Seconds(), "frames/s")
}
