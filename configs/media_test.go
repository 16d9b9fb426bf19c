package configs

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

func TestMediaDefaultsAndEnv(t *testing.T) {
	if m := Default().WeCom.Media; m != (MediaConfig{Timeout: 30 * time.Second, MaxBytes: 20 << 20}) {
		t.Fatalf("default wecom.media = %+v", m)
	}
	path := filepath.Join(t.TempDir(), "w.yaml")
	if err := os.WriteFile(path, []byte("wecom:\n  media:\n    timeout: 10s\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("WECODEX_WECOM_MEDIA_MAX_BYTES", "1048576")
	cfg, _, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if m := cfg.WeCom.Media; m != (MediaConfig{Timeout: 10 * time.Second, MaxBytes: 1 << 20}) {
		t.Fatalf("loaded wecom.media = %+v", m)
	}
}

func TestMediaValidation(t *testing.T) {
	for _, tc := range []struct {
		m    MediaConfig
		want []Problem
	}{
		{MediaConfig{Timeout: 0, MaxBytes: 0}, []Problem{
			{"wecom.media.timeout", "must be a positive duration like 30s, not 0s"},
			{"wecom.media.max_bytes", "must be a positive number of bytes like 20971520 (20 MiB), not 0"},
		}},
		{MediaConfig{Timeout: -time.Second, MaxBytes: 20<<20 + 1}, []Problem{
			{"wecom.media.timeout", "must be a positive duration like 30s, not -1s"},
			{"wecom.media.max_bytes", "must be at most 20971520 (20 MiB, what the engine keeps of one file), not 20971521"},
		}},
	} {
		c := Default()
		c.WeCom.Media = tc.m
		var ps Problems
		if err := c.Validate(); !errors.As(err, &ps) {
			t.Fatalf("%+v: err %v, want Problems", tc.m, err)
		}
		var got []Problem
		for _, p := range ps {
			if p.Key == "wecom.media.timeout" || p.Key == "wecom.media.max_bytes" {
				got = append(got, p)
			}
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%+v: problems %+v, want %+v", tc.m, got, tc.want)
		}
	}
}
