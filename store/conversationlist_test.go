package store

import (
	"context"
	"slices"
	"testing"
	"time"
)

func TestConversationList(t *testing.T) { forEachBackend(t, testConversationList) }

// Each turn's start lists its conversation with its last use and user;
// the list comes newest first with what each record holds, /new keeps a
// conversation listed without its session, and a conversation with no
// record left is not listed.
func testConversationList(t *testing.T, s *stores) {
	ctx := context.Background()
	if got, err := s.ListConversations(ctx); err != nil || len(got) != 0 {
		t.Fatalf("empty store lists %v (%v), want nothing", got, err)
	}
	t0 := time.UnixMilli(1_780_000_000_000)
	for _, step := range []struct {
		conv, session, cwd, user string
		at                       time.Time
	}{
		{"single:alice", "th-a", "/w/a", "alice", t0},
		{"group:c1", "th-g", "/w/g", "bob", t0.Add(time.Minute)},
		{"single:alice", "th-a", "/w/a", "alice", t0.Add(2 * time.Minute)},
	} {
		if err := s.SaveConversation(ctx, step.conv, step.session, step.cwd); err != nil {
			t.Fatal(err)
		}
		if err := s.TouchConversation(ctx, step.conv, step.user, step.at); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.ForgetSession(ctx, "group:c1"); err != nil {
		t.Fatal(err)
	}
	got, err := s.ListConversations(ctx)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		key, session, cwd, user string
		used                    int64
	}
	var rows []row
	for _, r := range got {
		rows = append(rows, row{r.Key, r.Session, r.Cwd, r.User, r.Used.UnixMilli()})
	}
	want := []row{
		{"single:alice", "th-a", "/w/a", "alice", t0.Add(2 * time.Minute).UnixMilli()},
		{"group:c1", "", "/w/g", "bob", t0.Add(time.Minute).UnixMilli()},
	}
	if !slices.Equal(rows, want) {
		t.Fatalf("listed %+v, want %+v", rows, want)
	}
	if got[0].Fields["session"] != "th-a" {
		t.Errorf("fields of single:alice = %v, want its session among them", got[0].Fields)
	}
	if err := s.Client().Del(ctx, s.DB.keys.Conv("group:c1").Session()).Err(); err != nil {
		t.Fatal(err)
	}
	got, err = s.ListConversations(ctx)
	if err != nil || len(got) != 1 || got[0].Key != "single:alice" {
		t.Fatalf("with group:c1's record gone the list is %+v (%v), want single:alice alone", got, err)
	}
}

func TestProjectChoice(t *testing.T) { forEachBackend(t, testProjectChoice) }

// A chosen project is kept with the conversation's record and drops its
// session (the next turn starts fresh there), keeping its cwd.
func testProjectChoice(t *testing.T, s *stores) {
	ctx := context.Background()
	if p, err := s.ChosenProject(ctx, "single:alice"); err != nil || p != "" {
		t.Fatalf("no choice yet = %q (%v)", p, err)
	}
	if err := s.SaveConversation(ctx, "single:alice", "th-1", "/w/a"); err != nil {
		t.Fatal(err)
	}
	if err := s.ChooseProject(ctx, "single:alice", "billing"); err != nil {
		t.Fatal(err)
	}
	p, err := s.ChosenProject(ctx, "single:alice")
	sid, cwd, err2 := s.Conversation(ctx, "single:alice")
	if err != nil || err2 != nil || p != "billing" || sid != "" || cwd != "/w/a" {
		t.Fatalf("after the choice: project %q (%v), session %q cwd %q (%v); want billing, no session, the cwd", p, err, sid, cwd, err2)
	}
}
