package codex

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// maxSnapshots is how many turns back /undo can put files back in one
// thread: older snapshots are dropped as new ones are kept, so a thread
// that runs for months does not keep a copy of every state of its
// workspace. An /undo past them undoes the history only, and says so.
const maxSnapshots = 50

// snapshotRefs is where a thread's snapshots are named, one ref per turn:
// refs/turns/<keep time, zero-padded nanoseconds>/<turn id>, so their
// names sort oldest first. (Earlier releases named them
// refs/turns/<turn id>; those are found too, and sort as the oldest.)
const snapshotRefs = "refs/turns/"

// keep records tree as the snapshot from before turnID and drops the
// oldest past maxSnapshots.
func (s snapshotter) keep(ctx context.Context, turnID, tree string) error {
	ref := fmt.Sprintf("%s%020d/%s", snapshotRefs, time.Now().UnixNano(), turnID)
	if err := s.git(ctx, nil, "update-ref", ref, tree); err != nil {
		return err
	}
	return s.prune(ctx, maxSnapshots)
}

// prune drops all but the newest keepN snapshots, then lets git pack and
// drop what no snapshot holds any more when enough has piled up.
func (s snapshotter) prune(ctx context.Context, keepN int) error {
	refs, err := s.refs(ctx)
	if err != nil {
		return err
	}
	for _, r := range refs[:max(0, len(refs)-keepN)] {
		if err := s.git(ctx, nil, "update-ref", "-d", r.name); err != nil {
			return err
		}
	}
	// In the foreground (autoDetach off), so it ends within ctx.
	return s.git(ctx, nil, "-c", "gc.autoDetach=false", "gc", "--auto", "--quiet")
}

type snapshotRef struct{ name, tree, turn string }

// refs lists the thread's snapshots, oldest first.
func (s snapshotter) refs(ctx context.Context) ([]snapshotRef, error) {
	if _, err := os.Stat(filepath.Join(s.gitDir, "HEAD")); err != nil {
		return nil, nil
	}
	var out bytes.Buffer
	if err := s.git(ctx, &out, "for-each-ref", "--sort=refname", "--format=%(refname) %(objectname)", snapshotRefs); err != nil {
		return nil, err
	}
	var old, refs []snapshotRef
	for line := range strings.Lines(out.String()) {
		name, tree, _ := strings.Cut(strings.TrimSpace(line), " ")
		rest := strings.TrimPrefix(name, snapshotRefs)
		if _, turn, ok := strings.Cut(rest, "/"); ok {
			refs = append(refs, snapshotRef{name, tree, turn})
		} else {
			old = append(old, snapshotRef{name, tree, rest})
		}
	}
	return append(old, refs...), nil
}

// find returns the snapshot from before turnID; ok is false when none was
// kept (or it was pruned).
func (s snapshotter) find(ctx context.Context, turnID string) (tree string, ok bool, err error) {
	r, ok, err := s.ref(ctx, turnID)
	return r.tree, ok, err
}

func (s snapshotter) ref(ctx context.Context, turnID string) (snapshotRef, bool, error) {
	refs, err := s.refs(ctx)
	if err != nil {
		return snapshotRef{}, false, err
	}
	for _, r := range refs {
		if r.turn == turnID {
			return r, true, nil
		}
	}
	return snapshotRef{}, false, nil
}

// forget drops the snapshot from before turnID.
func (s snapshotter) forget(ctx context.Context, turnID string) error {
	r, ok, err := s.ref(ctx, turnID)
	if err != nil || !ok {
		return err
	}
	return s.git(ctx, nil, "update-ref", "-d", r.name)
}
