package store

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
)

// go-redis's own lines come out through our logger, in its format, bounded.
func TestRedisClientLinesGoThroughSlog(t *testing.T) {
	var out bytes.Buffer
	l := redisLog{log: slog.New(slog.NewJSONHandler(&out, nil))}
	l.Printf(context.Background(), "redis: discarding bad PubSub connection: %s\n", strings.Repeat("x", 2000))
	var line map[string]any
	if err := json.Unmarshal(out.Bytes(), &line); err != nil {
		t.Fatalf("not one JSON line: %v: %s", err, out.Bytes())
	}
	detail, _ := line["detail"].(string)
	if line["level"] != "WARN" || line["msg"] != "redis client" ||
		!strings.HasPrefix(detail, "redis: discarding bad PubSub connection: xxx") || len(detail) != maxRedisLogLine+len("…") {
		t.Fatalf("line %v (detail %d bytes)", line, len(detail))
	}
}
