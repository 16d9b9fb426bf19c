package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// RSS counts every page a process maps, the pages it shares included: a
// binary's text, mapped by every replica on a node, is counted whole in
// each. PSS splits each shared page among the processes mapping it, and
// USS (private clean + dirty) is what the process alone holds, what
// stopping it would give back. /proc/PID/smaps_rollup has all three.
//
// PSS and USS both depend on who else maps the same files at the moment:
// the Codex binary's pages are private to an app-server that is the only
// one running it, and shared once another runs (other work on this
// machine does). anon, the anonymous memory, does not: it is the part of
// the cost that every replica pays whatever runs beside it.

// mem is one process's (or a tree's summed) memory in KiB.
type mem struct{ rss, pss, uss, anon int64 }

func (m mem) add(o mem) mem {
	return mem{m.rss + o.rss, m.pss + o.pss, m.uss + o.uss, m.anon + o.anon}
}

func (m mem) max(o mem) mem {
	return mem{max(m.rss, o.rss), max(m.pss, o.pss), max(m.uss, o.uss), max(m.anon, o.anon)}
}

// smapsRollup reads pid's memory, zero when it is gone.
func smapsRollup(pid int) mem {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		return mem{}
	}
	var m mem
	for _, line := range strings.Split(string(b), "\n") {
		name, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		if err != nil {
			continue
		}
		switch name {
		case "Rss":
			m.rss = n
		case "Pss":
			m.pss = n
		case "Private_Clean", "Private_Dirty":
			m.uss += n
		case "Anonymous":
			m.anon = n
		}
	}
	return m
}

// treeMem sums smapsRollup over pid's tree.
func treeMem(pid int) mem {
	var m mem
	for _, p := range distinctVM(treePIDs(pid)) {
		m = m.add(smapsRollup(p))
	}
	return m
}
