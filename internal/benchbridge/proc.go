package main

import (
	"bufio"
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	acp "github.com/coder/acp-go-sdk"
	"github.com/wecodex/wecodex/acpbridge"
)

// clockTicks is USER_HZ, the unit of utime and stime in /proc/PID/stat; it is
// 100 on every Linux architecture Go supports.
const clockTicks = 100

// sample is one bridge process's own cost for one turn.
type sample struct {
	cpu    float64 // user + system seconds of the process itself, not its children
	rssKiB int64   // VmHWM: peak resident set size
	wall   time.Duration
	// client is this process's own CPU seconds over the turn: what
	// wecodex's ExternalAgent spends reading the bridge.
	client float64
	// treeCPU and treeRSSKiB are the whole process tree's (bridge + Codex):
	// CPU seconds from start to the turn's end, and the peak of the summed
	// RSS sampled every 10 ms.
	treeCPU    float64
	treeRSSKiB int64
}

// selfCPU is this process's user + system CPU seconds so far.
func selfCPU() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

func readProc(pid int) (sample, error) {
	if pid <= 0 {
		return sample{}, fmt.Errorf("bridge process is not running")
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return sample{}, fmt.Errorf("read bridge cpu: %w", err)
	}
	// The command name (field 2) may hold spaces; fields after it start
	// after the last ')'. utime and stime are fields 14 and 15.
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	if len(fields) < 13 {
		return sample{}, fmt.Errorf("short /proc/%d/stat", pid)
	}
	utime, _ := strconv.ParseInt(fields[11], 10, 64)
	stime, _ := strconv.ParseInt(fields[12], 10, 64)
	rss, err := peakRSS(pid)
	if err != nil {
		return sample{}, err
	}
	return sample{cpu: float64(utime+stime) / clockTicks, rssKiB: rss}, nil
}

func peakRSS(pid int) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, fmt.Errorf("read bridge rss: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		}
	}
	return 0, fmt.Errorf("no VmHWM in /proc/%d/status", pid)
}

// collector keeps the answer text (agent_message_chunk) of one turn.
type collector struct{ answer strings.Builder }

func (c *collector) Update(u acp.SessionUpdate) {
	if m := u.AgentMessageChunk; m != nil && m.Content.Text != nil {
		c.answer.WriteString(m.Content.Text.Text)
	}
}

func (c *collector) Notice(acpbridge.Notice) {}

// logger shows the bridges' stderr when BENCHBRIDGE_DEBUG is set, to explain
// a failed run.
func logger() *slog.Logger {
	if os.Getenv("BENCHBRIDGE_DEBUG") == "" {
		return slog.New(slog.DiscardHandler)
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
}
