package metrics

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// The queue depth is the sum over conversations, and a conversation this
// replica stops running drops out.
func TestQueueDepthSumsConversations(t *testing.T) {
	m, err := New(prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct {
		conv    string
		waiting int
		want    float64
	}{
		{"single:a", 2, 2}, {"group:b", 3, 5}, {"single:a", 1, 4}, {"group:b", 0, 1}, {"single:a", 0, 0},
	} {
		m.QueueDepth(step.conv, step.waiting)
		if got := testutil.ToFloat64(m.queueDepth); got != step.want {
			t.Fatalf("after %s=%d: depth %v, want %v", step.conv, step.waiting, got, step.want)
		}
	}
}

// Registering twice on one registry fails instead of panicking: there is no
// global state, and a duplicate is the caller's mistake to see.
func TestNewOnTheSameRegistryTwice(t *testing.T) {
	reg := prometheus.NewRegistry()
	if _, err := New(reg); err != nil {
		t.Fatal(err)
	}
	if _, err := New(reg); err == nil {
		t.Fatal("second New on one registry succeeded; want a duplicate registration error")
	}
}
