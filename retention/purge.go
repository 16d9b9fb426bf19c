package retention

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/wecodex/wecodex/audit"
	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/store"
)

// PurgeStore is what purge removes from Redis (store.Conversations).
type PurgeStore interface {
	ListConversations(ctx context.Context) ([]store.ConversationRecord, error)
	PurgeConversation(ctx context.Context, conv string) (int, error)
}

// AuditRecords is the audit stream as purge reads and thins it
// (store.Audit).
type AuditRecords interface {
	ReadAudit(ctx context.Context, since time.Time, fn func(store.AuditEntry) error) error
	DeleteAudit(ctx context.Context, ids []string) (int64, error)
}

// UsedThreads is what the store remembers of the threads each
// conversation used (store.Threads, for /sessions).
type UsedThreads interface {
	UsedThreads(ctx context.Context, conv string) (ids []string, records [][]byte, used []time.Time, err error)
}

// PurgeOptions say whose content goes and where it is.
type PurgeOptions struct {
	User string
	// Store holds the conversations' state. Required.
	Store PurgeStore
	// Agent holds the threads (nil: none are deleted).
	Agent Threads
	// Used names more of each conversation's threads (nil: only the one
	// recorded and those in its workspace).
	Used UsedThreads
	// WorkspaceRoot is agent.workspace_root.
	WorkspaceRoot string
	// Stream is the audit stream (nil: audit.redis is off).
	Stream AuditRecords
	// AuditFile is audit.file ("" when none).
	AuditFile string
}

// PurgeReport is what a purge removed.
type PurgeReport struct {
	Conversations []string // the user's own conversations, by key
	Keys          int      // Redis keys deleted with them
	Threads       []string // Codex threads deleted
	Workspaces    []string // workspace directories removed
	AuditRecords  int64    // entries deleted from the audit stream
	AuditLines    int      // lines removed from audit.file
}

// Purge removes everything of o.User: their own conversations (a 1:1 chat,
// a member's own session in a group: keys "kind:USER" and
// "kind/USER:CHAT") with their Redis state, Codex threads, workspaces and
// the attachments in them; and every audit record that is theirs (sent by
// them or in one of their conversations) from the stream and audit.file.
// A group session they share with others stays, and so do the records of
// others that name them (an approval they decided): those belong to
// someone else's trail.
func Purge(ctx context.Context, o PurgeOptions) (PurgeReport, error) {
	var r PurgeReport
	if o.User == "" || strings.ContainsAny(o.User, ":/") {
		return r, fmt.Errorf("purge: %q is no user id", o.User)
	}
	convs, err := o.Store.ListConversations(ctx)
	if err != nil {
		return r, err
	}
	own := map[string]store.ConversationRecord{}
	for _, c := range convs {
		if ownedBy(c.Key, o.User) {
			own[c.Key] = c
		}
	}
	drop := func(rec audit.Record) bool { return rec.User == o.User || ownedBy(rec.Conversation, o.User) }
	if o.Stream != nil {
		n, err := purgeStream(ctx, o.Stream, drop, func(conv string) {
			if _, ok := own[conv]; !ok && ownedBy(conv, o.User) {
				own[conv] = store.ConversationRecord{Key: conv}
			}
		})
		r.AuditRecords = n
		if err != nil {
			return r, err
		}
	}
	if o.AuditFile != "" {
		n, err := purgeFile(o.AuditFile, drop)
		r.AuditLines = n
		if err != nil {
			return r, err
		}
	}
	r.Conversations = slices.Sorted(func(yield func(string) bool) {
		for k := range own {
			if !yield(k) {
				return
			}
		}
	})
	threadErr := purgeThreads(ctx, o, own, &r)
	if threadErr != nil {
		return r, threadErr // the conversations stay, so a second purge finds the threads
	}
	for _, conv := range r.Conversations {
		n, err := o.Store.PurgeConversation(ctx, conv)
		r.Keys += n
		if err != nil {
			return r, err
		}
		dirs, err := removeWorkspace(o.WorkspaceRoot, conv)
		r.Workspaces = append(r.Workspaces, dirs...)
		if err != nil {
			return r, err
		}
	}
	return r, nil
}

// ownedBy reports whether conv is user's alone: "kind:USER" (a 1:1 chat
// or the app) or "kind/USER:CHAT" (their own session in a group).
func ownedBy(conv, user string) bool {
	kind, id, ok := strings.Cut(conv, ":")
	if !ok {
		return false
	}
	if _, member, ok := strings.Cut(kind, "/"); ok {
		return member == user
	}
	return id == user
}

// purgeThreads deletes the threads of the user's conversations: the one
// each recorded, those /sessions remembers, and every other that worked
// in its own workspace (earlier ones, left by /new).
func purgeThreads(ctx context.Context, o PurgeOptions, own map[string]store.ConversationRecord, r *PurgeReport) error {
	if o.Agent == nil || len(own) == 0 {
		return nil
	}
	ids, dirs := map[string]bool{}, map[string]bool{}
	for k, c := range own {
		if c.Session != "" {
			ids[c.Session] = true
		}
		if o.Used != nil {
			used, _, _, err := o.Used.UsedThreads(ctx, k)
			if err != nil {
				return fmt.Errorf("purge threads: %w", err)
			}
			for _, id := range used {
				ids[id] = true
			}
		}
		if dir, err := filepath.Abs(bot.WorkspaceDir(o.WorkspaceRoot, k)); err == nil {
			dirs[dir] = true
		}
	}
	threads, err := o.Agent.StoredThreads(ctx)
	if err != nil {
		return fmt.Errorf("purge threads: %w", err)
	}
	var errs []error
	for _, t := range threads {
		if !ids[t.ID] && !dirs[filepath.Clean(t.Cwd)] {
			continue
		}
		// A thread a replica still has loaded ("already has an active
		// writer") is kept and named; the others still go.
		if err := o.Agent.DeleteThread(ctx, t.ID); err != nil {
			errs = append(errs, err)
			continue
		}
		r.Threads = append(r.Threads, t.ID)
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("purge threads (a thread a running replica holds is released agent.codex.idle_unload after its last turn; purge again then): %w", err)
	}
	return nil
}

// removeWorkspace removes conv's own workspace (its files, its
// attachments) and its private temporary directory, returning those that
// were there.
func removeWorkspace(root, conv string) ([]string, error) {
	if root == "" {
		return nil, nil
	}
	ws := bot.WorkspaceDir(root, conv)
	var removed []string
	for _, d := range []string{ws, bot.WorkspaceTmp(ws)} {
		if _, err := os.Lstat(d); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err := os.RemoveAll(d); err != nil {
			return removed, fmt.Errorf("purge workspace: %w", err)
		}
		removed = append(removed, d)
	}
	return removed, nil
}
