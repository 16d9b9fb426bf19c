package main

import (
	"bytes"
	"context"
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
	// treeMem is the peaks of the tree's summed smaps_rollup, sampled
	// every 100 ms and at the turn's end: its pss and uss beside the rss.
	treeMem mem
	// members is every process of the tree at the turn's end.
	members []member
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
	st, err := readStat(pid)
	if err != nil {
		return sample{}, fmt.Errorf("read bridge cpu: %w", err)
	}
	rss := statusKiB(pid, "VmHWM")
	if rss == 0 {
		return sample{}, fmt.Errorf("no VmHWM in /proc/%d/status", pid)
	}
	return sample{cpu: st.cpu, rssKiB: rss}, nil
}

// procStat is what /proc/PID/stat says of one process.
type procStat struct {
	name          string  // comm, as the kernel names it
	cpu, childCPU float64 // its own user + system seconds; its reaped children's
}

func readStat(pid int) (procStat, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return procStat{}, err
	}
	// The command name (field 2) may hold spaces; fields after it start
	// after the last ')'. utime, stime, cutime, cstime are fields 14-17.
	open, closing := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || closing < open {
		return procStat{}, fmt.Errorf("malformed /proc/%d/stat", pid)
	}
	f := strings.Fields(string(b[closing+1:]))
	if len(f) < 15 {
		return procStat{}, fmt.Errorf("short /proc/%d/stat", pid)
	}
	secs := func(i int) float64 {
		v, _ := strconv.ParseInt(f[i], 10, 64)
		return float64(v) / clockTicks
	}
	return procStat{name: string(b[open+1 : closing]), cpu: secs(11) + secs(12), childCPU: secs(13) + secs(14)}, nil
}

// statusKiB is one field of /proc/PID/status (VmRSS: now, VmHWM: the
// process's own peak) in KiB, 0 when the process is gone.
func statusKiB(pid int, field string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}

// collector keeps the answer text (agent_message_chunk) of one turn.
type collector struct{ answer strings.Builder }

func (c *collector) Update(u acp.SessionUpdate) {
	if m := u.AgentMessageChunk; m != nil && m.Content.Text != nil {
		c.answer.WriteString(m.Content.Text.Text)
	}
}

func (c *collector) Notice(acpbridge.Notice) {}

// RequestPermission allows what the bench's agents ask, as the bench always has.
func (c *collector) RequestPermission(_ context.Context, req acp.RequestPermissionRequest) acp.RequestPermissionResponse {
	return acpbridge.Policy(acpbridge.ApprovalAllow).Decide(req)
}

// logger shows the bridges' stderr when BENCHBRIDGE_DEBUG is set, to explain
// a failed run.
func logger() *slog.Logger {
	if os.Getenv("BENCHBRIDGE_DEBUG") == "" {
		return slog.New(slog.DiscardHandler)
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
}
