package store

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/redis/go-redis/v9"
)

// maxRedisLogLine bounds what one go-redis line may put in our log: its
// lines name addresses and errors, never values, but a bound keeps a
// surprise from flooding it.
const maxRedisLogLine = 512

// redisLog hands go-redis's own log lines (reconnects, Sentinel switches,
// pool trouble) to slog, so they share our format: with log.format: json
// every line wecodex writes parses as JSON, during an outage too.
type redisLog struct{ log *slog.Logger }

func (l redisLog) Printf(ctx context.Context, format string, v ...any) {
	line := strings.TrimSpace(fmt.Sprintf(format, v...))
	if len(line) > maxRedisLogLine {
		line = line[:maxRedisLogLine] + "…"
	}
	l.log.WarnContext(ctx, "redis client", "detail", line)
}

// routeRedisLogs sends go-redis's log lines to log. go-redis keeps one
// logger for the whole process, so the last store opened decides; a process
// opens one.
func routeRedisLogs(log *slog.Logger) { redis.SetLogger(redisLog{log: log}) }
