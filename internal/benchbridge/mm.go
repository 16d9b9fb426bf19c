package main

import "golang.org/x/sys/unix"

// A child between vfork (or a CLONE_VM spawn) and exec shares its
// parent's memory, and /proc shows that memory under both: a sample taken
// then would count the app-server twice (seen here once: a 150 MiB
// app-server sampled as a 292 MiB tree, most likely in such a moment as it
// started a shell). Each address space is counted once, under the first
// process of the tree holding it.

// kcmpVM is KCMP_VM: kcmp(2) answers 0 when two processes share one
// address space.
const kcmpVM = 1

func sameVM(a, b int) bool {
	r, _, errno := unix.Syscall6(unix.SYS_KCMP, uintptr(a), uintptr(b), kcmpVM, 0, 0, 0)
	return errno == 0 && r == 0
}

// distinctVM keeps of pids the first process of each address space.
func distinctVM(pids []int) []int {
	out := pids[:0:0]
	for _, p := range pids {
		shared := false
		for _, q := range out {
			if sameVM(p, q) {
				shared = true
				break
			}
		}
		if !shared {
			out = append(out, p)
		}
	}
	return out
}
