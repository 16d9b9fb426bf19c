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

// Tokens add up by kind, and every limit is exported before its first
// refusal.
func TestTokensAndLimited(t *testing.T) {
	m, err := New(prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	m.Tokens("input", 100)
	m.Tokens("output", 20)
	m.Tokens("input", 5)
	m.Limited("turns_per_user_per_hour")
	for _, c := range []struct {
		got  float64
		want float64
		what string
	}{
		{testutil.ToFloat64(m.tokens.WithLabelValues("input")), 105, "input tokens"},
		{testutil.ToFloat64(m.tokens.WithLabelValues("output")), 20, "output tokens"},
		{testutil.ToFloat64(m.limited.WithLabelValues("turns_per_user_per_hour")), 1, "turn limit"},
		{testutil.ToFloat64(m.limited.WithLabelValues("tokens_per_user_per_day")), 0, "token limit"},
	} {
		if c.got != c.want {
			t.Errorf("%s: %v, want %v", c.what, c.got, c.want)
		}
	}
}
