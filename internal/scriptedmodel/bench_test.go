package scriptedmodel

import (
	"io"
	"strconv"
	"testing"
)

// BenchmarkStream20000Deltas measures serving one 20,000-delta answer over
// loopback HTTP, the long-answer case the bridge benchmarks feed Codex.
func BenchmarkStream20000Deltas(b *testing.B) {
	const n = 20000
	deltas := make([]string, n)
	for i := range deltas {
		deltas[i] = " word" + strconv.Itoa(i%10)
	}
	resp := Reply(MessageDeltas(PhaseFinalAnswer, deltas...))
	s := startServer(b, ScriptFunc(func(*Request) (Response, error) { return resp, nil }))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		r := post(b, s.URL(), "long")
		nbytes, err := io.Copy(io.Discard, r.Body)
		r.Body.Close()
		if err != nil || nbytes < n*50 {
			b.Fatalf("read %d bytes: %v", nbytes, err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "deltas/s")
}
