package store

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"

	"github.com/redis/go-redis/v9"
)

// CountErrors calls failed with the name of every command that fails
// ("dial" for a connection that could not be made), for the metrics.
// redis.Nil (a missing key), a cancelled caller and NOSCRIPT (go-redis loads
// the script and retries) are answers, not failures. failed must not block.
func (s *DB) CountErrors(failed func(command string)) { s.client.AddHook(errorHook{failed}) }

type errorHook struct{ failed func(command string) }

func (h errorHook) DialHook(next redis.DialHook) redis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := next(ctx, network, addr)
		if isFailure(err) {
			h.failed("dial")
		}
		return c, err
	}
}

func (h errorHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		if isFailure(err) && !handshake(cmd) {
			h.failed(cmd.Name())
		}
		return err
	}
}

func (h errorHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		err := next(ctx, cmds)
		for _, c := range cmds {
			if isFailure(c.Err()) && !handshake(c) {
				h.failed(c.Name())
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

func isFailure(err error) bool {
	return err != nil && !errors.Is(err, redis.Nil) && !errors.Is(err, context.Canceled) &&
		!redis.HasErrorPrefix(err, "NOSCRIPT")
}
