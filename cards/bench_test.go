package cards

import (
	"fmt"
	"runtime"
	"testing"

	acp "github.com/coder/acp-go-sdk"
)

// benchTurn is a 20,000-delta turn shaped like Codex output: token-sized
// answer and commentary deltas (English and Chinese, code blocks), with tool
// calls starting and finishing along the way.
func benchTurn() []acp.SessionUpdate {
	const n = 20000
	words := []string{"The ", "parser ", "now ", "handles ", "边界", "条件", "correctly", ". ", "\n\n", "```go\n", "x := parse(input)\n", "```\n"}
	us := make([]acp.SessionUpdate, 0, n)
	tool := 0
	for i := 0; len(us) < n; i++ {
		switch {
		case i%40 == 0:
			id := acp.ToolCallId(fmt.Sprintf("call_%d", tool))
			us = append(us, acp.StartToolCall(id, fmt.Sprintf("Run go test ./pkg%d", tool), acp.WithStartKind(acp.ToolKindExecute), acp.WithStartStatus(acp.ToolCallStatusInProgress)))
		case i%40 == 1:
			us = append(us, acp.UpdateToolCall(acp.ToolCallId(fmt.Sprintf("call_%d", tool)), acp.WithUpdateStatus(acp.ToolCallStatusCompleted)))
			tool++
		case i%4 == 0:
			us = append(us, thought(fmt.Sprintf("msg_c%d", i/400), words[i%8]))
		default:
			us = append(us, msg("msg_answer", words[i%len(words)]))
		}
	}
	return us
}

// framesEvery simulates cards.update_interval: at ~100 deltas a second, a
// 500 ms interval renders a frame every 50 updates.
const framesEvery = 50

func BenchmarkApply(b *testing.B) {
	us := benchTurn()
	b.ReportAllocs()
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	for b.Loop() {
		c := New()
		for _, u := range us {
			c.Apply(u)
		}
	}
	runtime.ReadMemStats(&ms1)
	b.ReportMetric(float64(ms1.Mallocs-ms0.Mallocs)/float64(b.N*len(us)), "allocs/update")
}

// BenchmarkTurnStream is the whole WeCom AI-bot path of a turn: apply every
// delta, render a stream frame every framesEvery updates (rolling over to a
// new stream when a frame says so), and the final frames.
func BenchmarkTurnStream(b *testing.B) {
	us := benchTurn()
	b.ReportAllocs()
	var ms0, ms1 runtime.MemStats
	var rendered, frames, streams int
	runtime.ReadMemStats(&ms0)
	for b.Loop() {
		rendered, frames, streams = 0, 0, 1
		c := New(WithStreamLimit(streamMax))
		from, shown := 0, 0
		for i, u := range us {
			c.Apply(u)
			if i%framesEvery == framesEvery-1 {
				fr := c.Stream(from, shown)
				rendered += len(fr.Content)
				frames++
				shown = fr.BodyEnd
				if fr.MustFinish {
					from, shown = fr.BodyEnd, fr.BodyEnd
					streams++
				}
			}
		}
		c.SetStatus(Finished(acp.StopReasonEndTurn, nil))
		for {
			fr := c.Stream(from, shown)
			rendered += len(fr.Content)
			frames++
			if !fr.MustFinish {
				break
			}
			from, shown = fr.BodyEnd, fr.BodyEnd
			streams++
		}
	}
	runtime.ReadMemStats(&ms1)
	b.ReportMetric(float64(ms1.Mallocs-ms0.Mallocs)/float64(b.N*len(us)), "allocs/update")
	b.ReportMetric(float64(rendered), "bytes-rendered/turn")
	b.ReportMetric(float64(frames), "frames/turn")
	b.ReportMetric(float64(streams), "streams/turn")
}

// BenchmarkTurnMarkdown is the path of a platform that sends the answer as
// markdown messages (the self-built app): apply every delta, and split the
// answer at the end. (bot/wecom benchmarks the app's progress card.)
func BenchmarkTurnMarkdown(b *testing.B) {
	us := benchTurn()
	b.ReportAllocs()
	var rendered, parts int
	for b.Loop() {
		rendered, parts = 0, 0
		c := New(WithTitle("Fix the parser"))
		for _, u := range us {
			c.Apply(u)
		}
		c.SetStatus(Finished(acp.StopReasonEndTurn, nil))
		for _, p := range c.Markdown(markdownMax) {
			rendered += len(p)
			parts++
		}
	}
	b.ReportMetric(float64(rendered), "bytes-rendered/turn")
	b.ReportMetric(float64(parts), "markdown-parts/turn")
}
