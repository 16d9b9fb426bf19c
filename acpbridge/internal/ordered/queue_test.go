package ordered

import (
	"context"
	"errors"
	"testing"
)

// item is a value to record, or a flush point answering with err.
type item struct {
	v       int
	reached chan error
	err     error
}

// Items arrive in push order across batches; a flush returns the outcome
// its barrier carries once everything before it was handled; a closed queue
// refuses pushes and still handles what was queued before.
func TestQueueOrderFlushClose(t *testing.T) {
	var got []int
	block := make(chan struct{})
	q := New(func(batch []item) {
		for _, it := range batch {
			if it.reached != nil {
				it.reached <- it.err
				continue
			}
			if it.v == 0 {
				<-block // hold the handler so later pushes gather in one batch
				continue
			}
			got = append(got, it.v)
		}
	})
	q.Push(item{v: 0})
	for i := 1; i <= 100; i++ {
		q.Push(item{v: i})
	}
	close(block)
	broken := errors.New("write failed")
	reached := make(chan error, 1)
	if err := q.Flush(context.Background(), item{reached: reached, err: broken}, reached); !errors.Is(err, broken) {
		t.Fatalf("Flush = %v, want %v", err, broken)
	}
	for i, v := range got {
		if v != i+1 {
			t.Fatalf("item %d is %d, want %d (order lost)", i, v, i+1)
		}
	}
	if len(got) != 100 {
		t.Fatalf("%d items handled before the flush returned, want 100", len(got))
	}
	q.Push(item{v: 101})
	q.Close()
	if q.Push(item{v: 102}) {
		t.Fatal("Push after Close = true, want false")
	}
	<-q.Done()
	if len(got) != 101 || got[100] != 101 {
		t.Fatalf("after Close: %v, want 101 handled last", got[95:])
	}
	if err := q.Flush(context.Background(), item{reached: reached}, reached); err != nil {
		t.Fatalf("Flush on a closed queue = %v, want nil", err)
	}
}
