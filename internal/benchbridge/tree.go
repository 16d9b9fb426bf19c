package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The whole process tree's cost: the bridge and everything it started (the
// Codex app-server, the npm launcher in front of it). A bridge that embeds
// Codex (zed's) is a tree of one, so the trees compare like for like.

// treePIDs returns pid and every live descendant, from the kernel's
// per-thread children lists.
func treePIDs(pid int) []int {
	out := []int{pid}
	for i := 0; i < len(out); i++ {
		tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", out[i]))
		for _, f := range tasks {
			b, err := os.ReadFile(f)
			if err != nil {
				continue // the process ended meanwhile
			}
			for _, field := range strings.Fields(string(b)) {
				if c, err := strconv.Atoi(field); err == nil {
					out = append(out, c)
				}
			}
		}
	}
	return out
}

// treeCPU is the tree's user + system seconds: each live process's own and
// its reaped children's, which no live process counts again.
func treeCPU(pid int) float64 {
	var secs float64
	for _, p := range treePIDs(pid) {
		if st, err := readStat(p); err == nil {
			secs += st.cpu + st.childCPU
		}
	}
	return secs
}

// treeRSS sums field (VmRSS: now, VmHWM: each process's own peak) over the tree, in KiB.
func treeRSS(pid int, field string) int64 {
	var kib int64
	for _, p := range distinctVM(treePIDs(pid)) {
		kib += statusKiB(p, field)
	}
	return kib
}

// rssSampler records the peak of the tree's summed RSS, sampled every
// interval until stop: processes peak at different moments, so the sum of
// their peaks would overstate what the machine needed at once.
//
// Every smapsEvery-th sample also reads the tree's smaps_rollup for the
// peaks of its summed PSS and USS: the kernel walks every mapping for it,
// too slow to do every 10 ms without perturbing what is measured.
type rssSampler struct {
	stopOnce sync.Once
	stopc    chan struct{}
	done     chan struct{}
	peakKiB  int64
	peakMem  mem // of the smaps samples: rss, pss, uss
}

const smapsEvery = 10

func sampleRSS(pid int, interval time.Duration) *rssSampler {
	s := &rssSampler{stopc: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for i := 0; ; i++ {
			s.peakKiB = max(s.peakKiB, treeRSS(pid, "VmRSS"))
			if i%smapsEvery == 0 {
				s.peakMem = s.peakMem.max(treeMem(pid))
			}
			select {
			case <-s.stopc:
				return
			case <-t.C:
			}
		}
	}()
	return s
}

// stop ends sampling and returns the peak RSS seen.
func (s *rssSampler) stop() int64 {
	s.stopOnce.Do(func() { close(s.stopc) })
	<-s.done
	return s.peakKiB
}

// stopMem ends sampling and returns the peaks of the smaps samples, with
// one more taken now (the turn's end, where the tree is at its largest).
func (s *rssSampler) stopMem(pid int) mem {
	s.stop()
	return s.peakMem.max(treeMem(pid))
}

// member is one process of the tree at the turn's end, so the tree's
// figure can be explained process by process.
type member struct {
	procStat
	rssKiB, hwmKiB int64 // VmRSS now, VmHWM: its own peak
	mem            mem   // smaps_rollup now
}

func (m member) String() string {
	return fmt.Sprintf("%s %.2fs (+%.2fs reaped children) rss %.0f MiB (pss %.0f, uss %.0f, anon %.0f), own peak %.0f MiB",
		m.name, m.cpu, m.childCPU, float64(m.rssKiB)/1024, mib(m.mem.pss), mib(m.mem.uss), mib(m.mem.anon), float64(m.hwmKiB)/1024)
}

func mib(kib int64) float64 { return float64(kib) / 1024 }

// treeMembers describes every live process of the tree.
func treeMembers(pid int) []member {
	var out []member
	for _, p := range treePIDs(pid) {
		st, err := readStat(p)
		if err != nil {
			continue // ended meanwhile
		}
		out = append(out, member{procStat: st, rssKiB: statusKiB(p, "VmRSS"), hwmKiB: statusKiB(p, "VmHWM"), mem: smapsRollup(p)})
	}
	return out
}
