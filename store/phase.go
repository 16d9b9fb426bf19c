package store

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"
)

// phaseMarker starts every stored phase, so a recorded "" (a null phase) is a
// value distinct from a missing key.
const phaseMarker = "p:"

// SetPhase records the phase Codex gave an agent message item ("" for null).
func (s *Phases) SetPhase(ctx context.Context, threadID, itemID, phase string) error {
	if err := s.client.Set(ctx, s.keys.Phase(threadID, itemID), phaseMarker+phase, PhaseTTL).Err(); err != nil {
		return fmt.Errorf("record phase of item %s: %w", itemID, err)
	}
	return nil
}

// Phase returns the recorded phase of an item; ok is false when none is.
func (s *Phases) Phase(ctx context.Context, threadID, itemID string) (string, bool, error) {
	v, err := s.client.Get(ctx, s.keys.Phase(threadID, itemID)).Result()
	if errors.Is(err, redis.Nil) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("look up phase of item %s: %w", itemID, err)
	}
	phase, ok := strings.CutPrefix(v, phaseMarker)
	if !ok {
		return "", false, fmt.Errorf("look up phase of item %s: unexpected value %q", itemID, v)
	}
	return phase, true, nil
}

// ForgetPhase drops an item's phase once the item has completed.
func (s *Phases) ForgetPhase(ctx context.Context, threadID, itemID string) error {
	if err := s.client.Del(ctx, s.keys.Phase(threadID, itemID)).Err(); err != nil {
		return fmt.Errorf("forget phase of item %s: %w", itemID, err)
	}
	return nil
}
