package main

import "testing"

// A MONITOR line is counted by its command, whatever its arguments say,
// and apart when a script ran it.
func TestCommandOf(t *testing.T) {
	for line, want := range map[string]string{
		`1764662400.123456 [0 127.0.0.1:50112] "hmget" "p:webhook:frame:s1" "state" "owner"` + "\r\n": "HMGET",
		`1764662400.123456 [0 lua] "GET" "p:{conv:single:u}:dedupe:u:m \"quoted\""`:                   "lua GET",
		`+OK`: "?",
	} {
		if got := commandOf(line); got != want {
			t.Errorf("commandOf(%q) = %q, want %q", line, got, want)
		}
	}
}
