package configs

import (
	"errors"
	"reflect"
	"testing"
)

// pprof is only ever served on metrics.addr, so asking for it without one is
// an error that names both keys.
func TestMetricsKeys(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		want       []Problem
	}{
		{"defaults", "", nil},
		{"internal listener with pprof", "metrics:\n  addr: 127.0.0.1:9090\n  pprof: true\n", nil},
		{"pprof without a listener", "metrics:\n  pprof: true\n", []Problem{
			{"metrics.pprof", "needs metrics.addr: /debug/pprof is never served on server.addr; set metrics.addr (like 127.0.0.1:9090) or metrics.pprof: false"},
		}},
		{"bad address", "metrics:\n  addr: 9090\n", []Problem{
			{"metrics.addr", `must be host:port or :port (like 127.0.0.1:9090), or empty to serve /metrics on server.addr, not "9090"`},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, _, err := Load(writeConfig(t, tc.yaml))
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			var got Problems
			if err := cfg.Validate(); err != nil && !errors.As(err, &got) {
				t.Fatalf("Validate: %v", err)
			}
			var mine []Problem
			for _, p := range got {
				if p.Key == "metrics.addr" || p.Key == "metrics.pprof" {
					mine = append(mine, p)
				}
			}
			if !reflect.DeepEqual(mine, tc.want) {
				t.Errorf("problems = %#v, want %#v", mine, tc.want)
			}
		})
	}
}
