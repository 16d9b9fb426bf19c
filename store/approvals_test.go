package store

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// Requests get increasing short ids; a decision lands once, on the request
// it names: a repeated or late one gets the first decision back and decides
// nothing else, and every decision is announced.
func TestApprovalsDecideOnceFencedToTheRequest(t *testing.T) {
	s := openRealStore(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	events := make(chan string, 4)
	ready := make(chan struct{})
	watchCtx, stopWatch := context.WithCancel(ctx)
	watched := make(chan error, 1)
	go func() {
		watched <- s.WatchApprovals(watchCtx, func() { close(ready) }, func(conv string, id int64) {
			events <- fmt.Sprintf("%s#%d", conv, id)
		})
	}()
	<-ready

	for i, want := range []int64{1, 2} {
		id, err := s.OpenApproval(ctx, "group:t", []byte(fmt.Sprintf(`{"n":%d}`, i+1)))
		if err != nil || id != want {
			t.Fatalf("OpenApproval %d = %d, %v; want id %d", i+1, id, err, want)
		}
	}
	ids, reqs, err := s.PendingApprovals(ctx, "group:t")
	if err != nil || fmt.Sprint(ids) != "[1 2]" || string(reqs[0]) != `{"n":1}` || string(reqs[1]) != `{"n":2}` {
		t.Fatalf("pending = %v %q, %v; want [1 2] oldest first", ids, reqs, err)
	}
	if d, err := s.ApprovalDecision(ctx, "group:t", 1); d != nil || err != nil {
		t.Fatalf("decision of pending #1 = %q, %v; want none", d, err)
	}

	decided, current, req, err := s.DecideApproval(ctx, "group:t", 1, []byte("approve"))
	if err != nil || !decided || string(current) != "approve" || string(req) != `{"n":1}` {
		t.Fatalf("first decision = %v %q %q, %v", decided, current, req, err)
	}
	decided, current, _, err = s.DecideApproval(ctx, "group:t", 1, []byte("deny"))
	if err != nil || decided || string(current) != "approve" {
		t.Fatalf("repeated decision = %v %q, %v; want the first one back", decided, current, err)
	}
	if d, err := s.ApprovalDecision(ctx, "group:t", 1); string(d) != "approve" || err != nil {
		t.Fatalf("decision of #1 = %q, %v; want approve", d, err)
	}
	ids, _, err = s.PendingApprovals(ctx, "group:t")
	if err != nil || fmt.Sprint(ids) != "[2]" {
		t.Fatalf("pending after #1 decided = %v, %v; want [2] untouched", ids, err)
	}
	decided, current, _, err = s.DecideApproval(ctx, "group:t", 9, []byte("approve"))
	if err != nil || decided || current != nil {
		t.Fatalf("decision of unknown #9 = %v %q, %v; want nothing decided", decided, current, err)
	}
	select {
	case e := <-events:
		if e != "group:t#1" {
			t.Fatalf("event %q, want group:t#1", e)
		}
	case <-ctx.Done():
		t.Fatal("the decision of #1 was never announced")
	}
	stopWatch()
	if err := <-watched; err != nil {
		t.Fatal(err)
	}
	select {
	case e := <-events:
		t.Fatalf("extra event %q: only the one decision may be announced", e)
	default:
	}
}

// Ids are shared by every conversation: the id alone finds its
// conversation, and the global list holds what is pending, oldest first,
// until it is decided.
func TestApprovalIdsAcrossConversations(t *testing.T) {
	s := openRealStore(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for i, conv := range []string{"single:alice", "group:t", "single:alice"} {
		id, err := s.OpenApproval(ctx, conv, []byte(fmt.Sprintf(`{"n":%d}`, i+1)))
		if err != nil || id != int64(i+1) {
			t.Fatalf("OpenApproval in %s = %d, %v; want id %d", conv, id, err, i+1)
		}
	}
	for id, want := range map[int64]string{1: "single:alice", 2: "group:t", 3: "single:alice", 4: ""} {
		if got, err := s.ApprovalOwner(ctx, id); got != want || err != nil {
			t.Errorf("ApprovalOwner(%d) = %q, %v; want %q", id, got, err, want)
		}
	}
	if _, _, _, err := s.DecideApproval(ctx, "group:t", 2, []byte("deny")); err != nil {
		t.Fatal(err)
	}
	convs, ids, reqs, err := s.AllPendingApprovals(ctx)
	if err != nil || fmt.Sprint(convs, ids) != "[single:alice single:alice] [1 3]" || string(reqs[0]) != `{"n":1}` || string(reqs[1]) != `{"n":3}` {
		t.Fatalf("all pending = %v %v %q, %v; want #1 and #3 of single:alice", convs, ids, reqs, err)
	}
	if ids, _, err := s.PendingApprovals(ctx, "single:alice"); err != nil || fmt.Sprint(ids) != "[1 3]" {
		t.Fatalf("pending of single:alice = %v, %v; want [1 3]", ids, err)
	}
}
