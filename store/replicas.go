package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// Heartbeat records replica as alive for ttl; ttl 0 drops the record at once
// (a replica shutting down cleanly, so its conversations move without delay).
func (s *Replicas) Heartbeat(ctx context.Context, replica string, ttl time.Duration) error {
	key := s.keys.Replica(replica)
	var err error
	if ttl <= 0 {
		err = s.client.Del(ctx, key).Err()
	} else {
		err = s.client.Set(ctx, key, "1", ttl).Err()
	}
	if err != nil {
		return fmt.Errorf("heartbeat: %w", err)
	}
	return nil
}

// ReplicaAlive reports whether replica's heartbeat is current.
func (s *Replicas) ReplicaAlive(ctx context.Context, replica string) (bool, error) {
	n, err := s.client.Exists(ctx, s.keys.Replica(replica)).Result()
	if err != nil {
		return false, fmt.Errorf("read heartbeat: %w", err)
	}
	return n == 1, nil
}

// Owner returns the replica that last took a turn of conv ("" when none).
func (s *Replicas) Owner(ctx context.Context, conv string) (string, error) {
	v, err := s.client.Get(ctx, s.keys.Conv(conv).Owner()).Result()
	if errors.Is(err, redis.Nil) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read owner: %w", err)
	}
	return v, nil
}
