package app

import (
	"errors"
	"fmt"
	"testing"

	"github.com/wecodex/wecodex/bot/wecom"
	"github.com/wecodex/wecodex/internal/housetest"
)

// silenceper's errors quote the URL, token and secret included: scrub
// leaves neither, and keeps our own typed errors as they are.
func TestScrubRemovesTokenAndSecret(t *testing.T) {
	err := errors.New("http get error : uri=https://qyapi.weixin.qq.com/cgi-bin/gettoken?corpid=ww1&corpsecret=S3CR3T , statusCode=502; " +
		`Post "https://qyapi.weixin.qq.com/cgi-bin/message/send?access_token=AT1xyz": dial tcp: refused`)
	want := "http get error : uri=https://qyapi.weixin.qq.com/cgi-bin/gettoken?corpid=ww1&corpsecret=REDACTED , statusCode=502; " +
		`Post "https://qyapi.weixin.qq.com/cgi-bin/message/send?access_token=REDACTED": dial tcp: refused`
	if got := scrub(err).Error(); got != want {
		t.Fatalf("scrub:\n%s\nwant\n%s", got, want)
	}
	typed := fmt.Errorf("send: %w", &wecom.APIError{Op: "send markdown", Code: 42001, Msg: "access_token expired"})
	if got := scrub(typed); !tokenRefused(got) {
		t.Fatalf("scrub lost the typed error: %v", got)
	}
	if scrub(nil) != nil {
		t.Fatal("scrub(nil) != nil")
	}
}

// The app channel uses the WeCom layer, the engine, the cards and
// silenceper/wechat; never the store or a test double.
func TestImportDirection(t *testing.T) {
	housetest.Imports(t, "github.com/wecodex/wecodex/bot", "github.com/wecodex/wecodex/bot/wecom", "github.com/wecodex/wecodex/cards",
		"github.com/silenceper/wechat/v2/...")
}
