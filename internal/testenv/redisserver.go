package testenv

import (
	"testing"

	"github.com/wecodex/wecodex/internal/redisserver"
)

// RedisServer is a redis-server of one test's own (see redisserver.Server).
type RedisServer = redisserver.Server

// NewRedisServer reserves a port for one; see redisserver.New.
func NewRedisServer(t testing.TB) *RedisServer { return redisserver.New(t) }
