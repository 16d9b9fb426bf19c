package store

import (
	"context"
	"fmt"
	"strings"
)

// choicePrefix marks the Session hash's fields that hold a conversation's
// own settings (/model, /effort), so any replica runs its next turn with
// them and they outlive a restart and /new.
const choicePrefix = "choice."

// ChooseSetting records conv's own value for setting; "" drops it, giving
// the choice back to the project and the configuration.
func (s *Conversations) ChooseSetting(ctx context.Context, conv, setting, value string) error {
	key := s.keys.Conv(conv).Session()
	var err error
	if value == "" {
		err = s.client.HDel(ctx, key, choicePrefix+setting).Err()
	} else {
		p := s.client.TxPipeline()
		p.HSet(ctx, key, choicePrefix+setting, value)
		p.Expire(ctx, key, ConversationTTL)
		_, err = p.Exec(ctx)
	}
	if err != nil {
		return fmt.Errorf("record %s of conversation: %w", setting, err)
	}
	return nil
}

// ChosenSettings are the settings conv chose with ChooseSetting, by name.
func (s *Conversations) ChosenSettings(ctx context.Context, conv string) (map[string]string, error) {
	all, err := s.client.HGetAll(ctx, s.keys.Conv(conv).Session()).Result()
	if err != nil {
		return nil, fmt.Errorf("read settings of conversation: %w", err)
	}
	out := map[string]string{}
	for k, v := range all {
		if name, ok := strings.CutPrefix(k, choicePrefix); ok {
			out[name] = v
		}
	}
	return out, nil
}
