package store

import (
	"context"
	"slices"
	"testing"
)

// A grant is kept per conversation, once however often it is added.
func TestGrantsPerConversation(t *testing.T) { forEachBackend(t, testGrantsPerConversation) }

func testGrantsPerConversation(t *testing.T, s *stores) {
	ctx := context.Background()
	for _, g := range []string{`{"prefix":["git","push"]}`, `{"prefix":["git","push"]}`, `{"exact":"make"}`} {
		if err := s.AddGrant(ctx, "group:a", []byte(g)); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Grants(ctx, "group:a")
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, g := range got {
		texts = append(texts, string(g))
	}
	slices.Sort(texts)
	if !slices.Equal(texts, []string{`{"exact":"make"}`, `{"prefix":["git","push"]}`}) {
		t.Fatalf("Grants(group:a) = %q", texts)
	}
	if other, err := s.Grants(ctx, "group:b"); err != nil || len(other) != 0 {
		t.Fatalf("Grants(group:b) = %q %v, want none", other, err)
	}
}
