package external

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wecodex/wecodex/acpbridge/internal/readpace"
)

// trickleEnv, when set to a file, turns the test binary into a writer that
// copies the file's lines to its stdout one write per line with
// trickleGap between them, as an agent relaying a model's deltas does.
const trickleEnv = "WECODEX_TEST_TRICKLE"

// The writer sleeps trickleGap after every trickleBurst lines, about 50 µs a
// line on average: a model streams a delta every few tens of microseconds,
// and a reader that wakes per line wakes for nearly every one. (A sleep per
// line would last a millisecond or more on a busy machine, and measure idle
// time instead.)
const (
	trickleBurst = 16
	trickleGap   = 800 * time.Microsecond
)

func runTrickle(path string) {
	raw, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "trickle:", err)
		os.Exit(2)
	}
	for i := 1; len(raw) > 0; i++ {
		line, rest, _ := bytes.Cut(raw, []byte("\n"))
		raw = rest
		if _, err := os.Stdout.Write(append(line, '\n')); err != nil {
			os.Exit(1)
		}
		if i%trickleBurst == 0 {
			time.Sleep(trickleGap)
		}
	}
}

// selfCPU is this process's user + system CPU time so far.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkExternalTrickledStream is BenchmarkExternalRecordedStream through
// a real pipe from another process that writes the recorded turn (grown to
// 5,000 answer chunks) one line at a time, as the agents do: what the
// client's own CPU costs per update, read system calls and goroutine
// wake-ups included (cpu-ns/update; the writer's CPU is its own process's).
func BenchmarkExternalTrickledStream(b *testing.B) {
	for _, name := range agentRecordings {
		b.Run(name, func(b *testing.B) {
			stream, updates, answer := recordedStream(b, name, 5000)
			path := filepath.Join(b.TempDir(), "stream.jsonl")
			if err := os.WriteFile(path, stream, 0o600); err != nil {
				b.Fatal(err)
			}
			// What the in-memory feed delivers is what each pass must.
			ref := &answerSink{keep: true}
			newBenchRig(b, sessionOf(b, stream), ref).feed(b, stream)
			if !strings.HasSuffix(ref.answer.String(), answer) {
				b.Fatalf("in-memory feed: answer of %d bytes lacks the %d streamed", ref.bytes, len(answer))
			}
			sink := &answerSink{}
			r := newBenchRig(b, sessionOf(b, stream), sink)
			var cpu time.Duration
			b.ReportAllocs()
			for b.Loop() {
				cpu += r.feedFrom(b, path)
			}
			if want := b.N * ref.bytes; sink.bytes != want {
				b.Fatalf("answer bytes %d, want %d", sink.bytes, want)
			}
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N*updates), "cpu-ns/update")
		})
	}
}

// feedFrom runs a trickle writer for path and reads its stdout as an agent's,
// returning this process's CPU time over the stream.
func (r *benchRig) feedFrom(tb testing.TB, path string) time.Duration {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), trickleEnv+"="+path)
	out, w, err := readpace.Pipe("trickle")
	if err != nil {
		tb.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = w, os.Stderr
	runtime.GC() // the collector's work for earlier runs is not this one's
	before := selfCPU()
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	w.Close()
	ur := newAgentReader(out, r.client, r.a.log)
	done := make(chan []byte)
	go func() {
		rest, _ := io.ReadAll(ur)
		done <- rest
	}()
	ur.run(make(chan struct{}))
	rest := <-done
	if err := r.s.queue.flush(tb.Context()); err != nil {
		tb.Fatal(err)
	}
	cpu := selfCPU() - before
	if err := cmd.Wait(); err != nil {
		tb.Fatal(err)
	}
	out.Close()
	if n := strings.Count(string(rest), "\n"); n > 1 {
		tb.Fatalf("%d lines went on to the SDK, want at most the prompt's response", n)
	}
	return cpu
}
