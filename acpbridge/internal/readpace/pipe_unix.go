//go:build unix

package readpace

import (
	"fmt"
	"os"
	"syscall"
)

// Pipe returns a pipe whose read end is a plain blocking file, outside Go's
// network poller: a pollable pipe wakes the poller for every line written,
// even while the reader waits out Pace, and a blocking read wakes nobody
// until the reader asks. Closing the read end does not interrupt a read in
// progress; the reader ends when every write end is closed.
func Pipe(name string) (r, w *os.File, err error) {
	var p [2]int
	// Held so no process started meanwhile inherits the pipe before it is
	// close-on-exec (Pipe2 would do it at once, but not every unix has it).
	syscall.ForkLock.RLock()
	err = syscall.Pipe(p[:])
	if err == nil {
		syscall.CloseOnExec(p[0])
		syscall.CloseOnExec(p[1])
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return nil, nil, fmt.Errorf("pipe for %s: %w", name, err)
	}
	return os.NewFile(uintptr(p[0]), name), os.NewFile(uintptr(p[1]), name+"-w"), nil
}
