package testenv

import (
	"testing"

	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/store"
)

// Stores is every purpose's type of the store on one DB: one replica's
// whole view of the shared state, for tests that play a replica (and wrap
// some of its calls to fail or record them). Production code builds only
// the parts each consumer takes (cmd/wecodex).
type Stores struct {
	DB *store.DB
	*store.Queue
	*store.Dedupe
	*store.Conversations
	*store.Attachments
	*store.Replicas
	*store.Approvals
	*store.Webhook
	*store.LongConn
	*store.App
	*store.Phases
	*store.Threads
}

// OpenStores is OpenStore's DB with every purpose's type on it.
func OpenStores(t testing.TB, prefix string) *Stores { return StoresOf(OpenStore(t, prefix)) }

// StoresOf is every purpose's type on db.
func StoresOf(db *store.DB) *Stores {
	return &Stores{DB: db, Queue: store.NewQueue(db), Dedupe: store.NewDedupe(db),
		Conversations: store.NewConversations(db), Attachments: store.NewAttachments(db),
		Replicas: store.NewReplicas(db), Approvals: store.NewApprovals(db), Webhook: store.NewWebhook(db),
		LongConn: store.NewLongConn(db), App: store.NewApp(db), Phases: store.NewPhases(db),
		Threads: store.NewThreads(db)}
}

// EngineParts is every part of bot.Store in one value (a Stores, or a test's
// wrapper of one).
type EngineParts interface {
	bot.Dedupe
	bot.Leases
	bot.Replicas
	bot.Conversations
	bot.Attachments
	bot.ApprovalStore
}

// EngineStore is the engine's store with every part served by p, and the
// sessions /sessions lists when p keeps them too.
func EngineStore(p EngineParts) bot.Store {
	s := bot.Store{Dedupe: p, Queue: p, Replicas: p, Conversations: p, Attachments: p, Approvals: p}
	if ts, ok := p.(bot.ThreadStore); ok {
		s.Threads = ts
	}
	return s
}
