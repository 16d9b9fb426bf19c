package configs

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestMediaDefaultsAndEnv(t *testing.T) {
	if m := Default().WeCom.Media; m != (MediaConfig{Timeout: 30 * time.Second, MaxBytes: 20 << 20, MaxFiles: 10}) {
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
	if m := cfg.WeCom.Media; m != (MediaConfig{Timeout: 10 * time.Second, MaxBytes: 1 << 20, MaxFiles: 10}) {
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
			{"wecom.media.max_files", "must be a positive number of files like 10, not 0"},
		}},
		{MediaConfig{Timeout: -time.Second, MaxBytes: 20<<20 + 1, MaxFiles: 1}, []Problem{
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
			if strings.HasPrefix(p.Key, "wecom.media.") {
				got = append(got, p)
			}
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%+v: problems %+v, want %+v", tc.m, got, tc.want)
		}
	}
}

func TestAllowedHostsDefaultsEnvAndValidation(t *testing.T) {
	if h := Default().WeCom.AllowedHosts; !reflect.DeepEqual(h, []string{"qyapi.weixin.qq.com", "ww-aibot-img-1258476243.cos.ap-guangzhou.myqcloud.com"}) {
		t.Fatalf("default wecom.allowed_hosts = %q", h)
	}
	t.Setenv("WECODEX_WECOM_ALLOWED_HOSTS", "qyapi.weixin.qq.com,127.0.0.1")
	cfg, _, err := Load("")
	if err != nil {
		t.Fatal(err)
	}
	if h := cfg.WeCom.AllowedHosts; !reflect.DeepEqual(h, []string{"qyapi.weixin.qq.com", "127.0.0.1"}) {
		t.Fatalf("loaded wecom.allowed_hosts = %q", h)
	}
	c := Default()
	c.WeCom.AllowedHosts = []string{"*.myqcloud.com", "10.0.0.0/8", "::1", "https://qyapi.weixin.qq.com", "host:443", "a/b"}
	var ps Problems
	if err := c.Validate(); !errors.As(err, &ps) {
		t.Fatalf("err %v, want Problems", err)
	}
	var got []string
	for _, p := range ps {
		if strings.HasPrefix(p.Key, "wecom.allowed_hosts") {
			got = append(got, p.Key)
		}
	}
	if want := []string{"wecom.allowed_hosts[3]", "wecom.allowed_hosts[4]", "wecom.allowed_hosts[5]"}; !reflect.DeepEqual(got, want) {
		t.Errorf("problems at %q, want %q", got, want)
	}
	c.WeCom.AllowedHosts = nil
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "wecom.allowed_hosts: must list at least one host") {
		t.Errorf("no hosts: %v", err)
	}
}
