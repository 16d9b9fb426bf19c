package store

// One type per purpose, each built on a DB and meeting one consumer's
// interface (declared by that consumer): the engine's queue and leases,
// dedupe, conversations, attachments, replicas and approvals (bot), the
// webhook channel's frames and /more, the long connection's holder and
// relay, the self-built app's token, pacing and cards, and Codex's message
// phases (acpbridge.PhaseStore). They share the DB's client; none holds
// state of its own, so building one is free.

// Queue serialises turns: per conversation a FIFO queue of waiting
// messages and a lease with a fencing token, the running turn's record,
// stop requests, and the set of conversations with work (bot.Leases).
type Queue struct{ conn }

// NewQueue is db's queue and leases.
func NewQueue(db *DB) *Queue { return &Queue{db.conn} }

// Dedupe remembers which platform messages were received (bot.Dedupe).
type Dedupe struct{ conn }

// NewDedupe is db's message dedupe.
func NewDedupe(db *DB) *Dedupe { return &Dedupe{db.conn} }

// Conversations keeps each conversation's agent session and working
// directory (bot.Conversations).
type Conversations struct{ conn }

// NewConversations is db's conversation records.
func NewConversations(db *DB) *Conversations { return &Conversations{db.conn} }

// Threads keeps the agent sessions (Codex threads) each conversation
// used, for /sessions, /resume and /fork (bot.ThreadStore).
type Threads struct{ conn }

// NewThreads is db's per-conversation thread records.
func NewThreads(db *DB) *Threads { return &Threads{db.conn} }

// Attachments keeps a queued message's attachments until its turn is over
// (bot.Attachments).
type Attachments struct{ conn }

// NewAttachments is db's attachment bytes.
func NewAttachments(db *DB) *Attachments { return &Attachments{db.conn} }

// Replicas tracks which replicas are alive and which one owns a
// conversation (bot.Replicas).
type Replicas struct{ conn }

// NewReplicas is db's heartbeats and conversation owners.
func NewReplicas(db *DB) *Replicas { return &Replicas{db.conn} }

// Approvals records approval requests and their decisions (bot.ApprovalStore).
type Approvals struct{ conn }

// NewApprovals is db's approval requests.
func NewApprovals(db *DB) *Approvals { return &Approvals{db.conn} }

// Webhook is the webhook channel's state: each reply stream's newest
// frame, and the unread end of a long answer for /more (webhook.Store).
type Webhook struct{ conn }

// NewWebhook is db's webhook frames and rests.
func NewWebhook(db *DB) *Webhook { return &Webhook{db.conn} }

// LongConn is the long connection's state across replicas: the holder
// lease, the newest frame of each stream and the proactive sends waiting
// for the holder, and their announcements (longconn.Store).
type LongConn struct{ conn }

// NewLongConn is db's long-connection holder and relay.
func NewLongConn(db *DB) *LongConn { return &LongConn{db.conn} }

// App is the self-built app's shared state: the access token cache lent to
// silenceper/wechat, the per-user send reservations, and each reply's
// progress-card code (app.Store).
type App struct{ conn }

// NewApp is db's self-built app state.
func NewApp(db *DB) *App { return &App{db.conn} }

// Phases keeps the phase of Codex's agent message items
// (acpbridge.PhaseStore).
type Phases struct{ conn }

// NewPhases is db's message phases.
func NewPhases(db *DB) *Phases { return &Phases{db.conn} }

// Audit is the audit trail's stream and each conversation's sequence
// (audit.Stream).
type Audit struct{ conn }

// NewAudit is db's audit stream.
func NewAudit(db *DB) *Audit { return &Audit{db.conn} }

// Limits counts each user's turns per hour and tokens per day
// (bot.LimitStore).
type Limits struct{ conn }

// NewLimits is db's limit counters.
func NewLimits(db *DB) *Limits { return &Limits{db.conn} }
