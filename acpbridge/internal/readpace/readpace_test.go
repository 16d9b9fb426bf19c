package readpace

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"
)

// TestReaderPacesOnlyAfterSmallReads: the first read and a read after a big
// one go at once; a read after a small one waits out what is left of Pace.
func TestReaderPacesOnlyAfterSmallReads(t *testing.T) {
	big := strings.Repeat("x", Small)
	src := io.MultiReader(strings.NewReader("small\n"), strings.NewReader(big), strings.NewReader("tail\n"), strings.NewReader("end\n"))
	var slept []time.Duration
	clock := time.Unix(1, 0)
	r := &Reader{R: src, Sleep: func(d time.Duration) { slept = append(slept, d) }, now: func() time.Time { return clock }}
	buf := make([]byte, 2*Small)
	var got bytes.Buffer
	var sleptBefore []int // how many sleeps had happened before each read
	for {
		sleptBefore = append(sleptBefore, len(slept))
		n, err := r.Read(buf)
		got.Write(buf[:n])
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if want := "small\n" + big + "tail\nend\n"; got.String() != want {
		t.Fatalf("read %d bytes, want %d", got.Len(), len(want))
	}
	// Reads: "small" (no wait), big (waits: after small), "tail" (no wait:
	// after big), "end" (waits), EOF (waits).
	if want := []int{0, 0, 1, 1, 2}; !equalInts(sleptBefore, want) {
		t.Errorf("sleeps before each read %v, want %v", sleptBefore, want)
	}
	// The clock stands still, so each wait is the whole pace.
	for _, d := range slept {
		if d != Pace {
			t.Errorf("slept %v, want %v", d, Pace)
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestPipeCarriesBytes: the blocking pipe is a pipe.
func TestPipeCarriesBytes(t *testing.T) {
	r, w, err := Pipe("test")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	go func() {
		w.Write([]byte("line 1\nline 2\n"))
		w.Close()
	}()
	b, err := io.ReadAll(r)
	if err != nil || string(b) != "line 1\nline 2\n" {
		t.Fatalf("read %q, %v", b, err)
	}
}
