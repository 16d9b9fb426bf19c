package metrics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"

	"github.com/redis/go-redis/v9"
)

// RedisHook returns a go-redis hook that counts every failed command on m
// by its name (RedisError). redis.Nil (a missing key), a cancelled caller
// and NOSCRIPT (go-redis loads the script and retries) are answers, not
// failures.
func RedisHook(m *Metrics) redis.Hook { return redisHook{m} }

type redisHook struct{ o *Metrics }

func (h redisHook) DialHook(next redis.DialHook) redis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := next(ctx, network, addr)
		if failed(err) {
			h.o.RedisError("dial")
		}
		return c, err
	}
}

func (h redisHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		if failed(err) && !handshake(cmd) {
			h.o.RedisError(cmd.Name())
		}
		return err
	}
}

func (h redisHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		err := next(ctx, cmds)
		for _, c := range cmds {
			if failed(c.Err()) && !handshake(c) {
				h.o.RedisError(c.Name())
			}
		}
		return err
	}
}

// handshake reports whether c is one of the CLIENT commands go-redis sends
// on each new connection to learn what the server supports (SETINFO,
// MAINT_NOTIFICATIONS): an older Redis refuses them, and go-redis carries on.
func handshake(c redis.Cmder) bool {
	args := c.Args()
	if c.Name() != "client" || len(args) < 2 {
		return false
	}
	sub := strings.ToLower(fmt.Sprint(args[1]))
	return sub == "setinfo" || sub == "maint_notifications"
}

func failed(err error) bool {
	return err != nil && !errors.Is(err, redis.Nil) && !errors.Is(err, context.Canceled) &&
		!redis.HasErrorPrefix(err, "NOSCRIPT")
}
