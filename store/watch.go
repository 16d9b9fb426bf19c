package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// watch subscribes to channels and calls fn with each message, in
// publication order, until ctx ends (then it returns nil). ready is called
// once every subscription is confirmed, so the caller may scan for what was
// published before. what names the subscription in errors.
func watch(ctx context.Context, s conn, what string, ready func(), fn func(*redis.Message), channels ...string) error {
	sub := s.client.Subscribe(ctx, channels...)
	defer sub.Close()
	for range channels { // one confirmation per channel
		if _, err := sub.Receive(ctx); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("subscribe to %s: %w", what, err)
		}
	}
	ready()
	ch := sub.Channel()
	for {
		select {
		case <-ctx.Done():
			return nil
		case m, ok := <-ch:
			if !ok {
				return errors.New(what + " subscription closed")
			}
			fn(m)
		}
	}
}
