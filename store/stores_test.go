package store

import "github.com/redis/go-redis/v9"

// stores is every purpose's type on one DB, so a test reads as the calls
// replicas make, whichever type serves each.
type stores struct {
	*DB
	*Queue
	*Dedupe
	*Conversations
	*Attachments
	*Replicas
	*Approvals
	*Webhook
	*LongConn
	*App
	*Phases
	*Threads
}

func allOf(db *DB) *stores {
	return &stores{db, NewQueue(db), NewDedupe(db), NewConversations(db), NewAttachments(db), NewReplicas(db),
		NewApprovals(db), NewWebhook(db), NewLongConn(db), NewApp(db), NewPhases(db), NewThreads(db)}
}

// Client is the raw client, for a test that looks under the types.
func (s *stores) Client() redis.UniversalClient { return s.DB.client }

// turn is what TakeTurn returns, as one value.
type turn struct {
	Token  int64
	Item   []byte
	Queued int
	Orphan []byte
}

func taken(token int64, item []byte, queued int, orphan []byte, err error) (turn, error) {
	return turn{token, item, queued, orphan}, err
}
