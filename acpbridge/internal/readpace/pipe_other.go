//go:build !unix

package readpace

import "os"

// Pipe returns a pipe.
func Pipe(string) (r, w *os.File, err error) { return os.Pipe() }
