package store

import (
	"context"
	"reflect"
	"testing"
)

func TestSettingChoices(t *testing.T) { forEachBackend(t, testSettingChoices) }

// A conversation's own settings stay with its record through /new, and ""
// drops one.
func testSettingChoices(t *testing.T, s *stores) {
	ctx := context.Background()
	if got, err := s.ChosenSettings(ctx, "single:alice"); err != nil || len(got) != 0 {
		t.Fatalf("no choice yet = %v (%v)", got, err)
	}
	if err := s.SaveConversation(ctx, "single:alice", "th-1", "/w/a"); err != nil {
		t.Fatal(err)
	}
	for _, c := range [][2]string{{"model", "gpt-5.5"}, {"effort", "high"}, {"effort", "low"}} {
		if err := s.ChooseSetting(ctx, "single:alice", c[0], c[1]); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.ForgetSession(ctx, "single:alice"); err != nil {
		t.Fatal(err)
	}
	got, err := s.ChosenSettings(ctx, "single:alice")
	if want := map[string]string{"model": "gpt-5.5", "effort": "low"}; err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("after /new: %v (%v), want %v", got, err, want)
	}
	if err := s.ChooseSetting(ctx, "single:alice", "model", ""); err != nil {
		t.Fatal(err)
	}
	got, err = s.ChosenSettings(ctx, "single:alice")
	if want := map[string]string{"effort": "low"}; err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("after dropping the model: %v (%v), want %v", got, err, want)
	}
}
