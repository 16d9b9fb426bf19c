package store

import (
	"strconv"
	"time"
)

// Every key wecodex writes and how long it lives. A key is built only here, so
// a reader can see the whole Redis layout in one file.
//
// Keys that one script or transaction touches together carry the hash tag
// {conv:ID}, so Redis Cluster puts them in one slot. The prefix must not
// contain braces (configs validates redis.prefix) or it would become the tag.
const (
	// DedupeTTL: WeCom retries an unanswered callback (3 times within seconds)
	// and may repeat one later; a day is far beyond any repeat.
	DedupeTTL = 24 * time.Hour
	// ConversationTTL: a conversation's session, owner and fence outlive quiet
	// weeks; each use renews them.
	ConversationTTL = 30 * 24 * time.Hour
	// PhaseTTL: a phase is needed only between an item's item/started and
	// item/completed; the TTL only collects items whose completion never came.
	PhaseTTL = 24 * time.Hour
	// FrameTTL: WeCom asks for the newest stream frame for at most 6 minutes
	// after the user's message; keep a margin for clock skew.
	FrameTTL = 10 * time.Minute
	// LeaseTTL: the holder of a conversation's lease renews it every third of
	// this (bot.Config.LeaseTTL); when a replica dies the lease lapses this
	// soon and another takes over.
	LeaseTTL = 30 * time.Second
	// RunningTTL: the record of a running turn is renewed with its lease, so
	// it outlives a holder that died by this much: long enough for another
	// replica to find it, no longer than the frame it lets that replica finish.
	RunningTTL = FrameTTL
	// FenceTTL: the fencing counter only needs to outlive any holder that could
	// still present an old token; it is renewed with every increment.
	FenceTTL = ConversationTTL
	// QueueTTL: messages waiting longer than this are stale; each push renews it.
	QueueTTL = time.Hour
	// ReplicaTTL: a replica's heartbeat, renewed every third of it
	// (bot.Config.HeartbeatTTL); a replica missing it is presumed dead and
	// its conversations may move.
	ReplicaTTL = 30 * time.Second
	// RestTTL: the part of a long answer no reply could carry waits this long
	// for the user's /more.
	RestTTL = 24 * time.Hour
	// HolderTTL: the long connection's holder lease. A holder closes its
	// connection before the lease could lapse, and a standby takes it this
	// soon after the holder died.
	HolderTTL = 9 * time.Second
	// HolderRenewEvery is how often the holder renews (and a standby tries).
	HolderRenewEvery = HolderTTL / 3
	// LongConnStreamTTL: the newest frame of a stream pushed through the long
	// connection, kept so a new holder can re-push it; each frame renews it,
	// and a turn changes its card far more often than this.
	LongConnStreamTTL = time.Hour
	// ApprovalTTL: an approval request and its decision outlive any
	// agent.approval_timeout a turn waits (turns are cut at
	// agent.turn_timeout anyway); the record only serves the wait and a late
	// /approve's "already decided" answer.
	ApprovalTTL = 24 * time.Hour
	// AttachmentTTL: a message's attachment waits for its turn in the queue
	// (QueueTTL) and is deleted once the turn finished; the TTL only collects
	// the bytes of a turn whose replica died before it could.
	AttachmentTTL = 24 * time.Hour
	// AppCardTTL: a self-built app's progress card can be updated with its
	// response_code for 72 hours (WeCom, update_template_card); a turn ends
	// long before, and the record outlives the turn only to refuse a second
	// update.
	AppCardTTL = 72 * time.Hour
	// AppPaceTTL: the app's send reservations of a user are needed for
	// WeCom's longest window (1 000 messages an hour); each reservation
	// renews them.
	AppPaceTTL = 2 * time.Hour
	// DataMarkTTL: the mark that this Redis still holds wecodex's data (see
	// Keys.DataMark) only has to outlive every frame and lease it vouches
	// for; each frame that goes missing renews it.
	DataMarkTTL = ConversationTTL
	// FetchTTL: a webhook message whose files are being fetched is kept
	// until it is received; WeCom's links to its files live 5 minutes and
	// its stream 6, so past this nothing can be done with it.
	FetchTTL = FrameTTL
	// LimitTurnsTTL: a user's turn count of one clock hour
	// (limits.turns_per_user_per_hour) is read only during that hour; the
	// margin covers clocks a little apart.
	LimitTurnsTTL = 2 * time.Hour
	// LimitTokensTTL: a user's token count of one UTC day
	// (limits.tokens_per_user_per_day), with the same margin.
	LimitTokensTTL = 26 * time.Hour
)

// Keys builds the Redis keys under one prefix. The keys of one
// conversation, one long-connection bot and the self-built app are built by
// ConvKeys, LongConnKeys and AppKeys, so each builder stays small.
type Keys struct{ prefix string }

// NewKeys returns the key builder for prefix (redis.prefix, e.g. "wecodex:").
func NewKeys(prefix string) Keys { return Keys{prefix: prefix} }

// Prefix is the prefix every key starts with.
func (k Keys) Prefix() string { return k.prefix }

// Conv builds the keys of one conversation. They share the hash tag
// {conv:ID}, so one script may touch them together in a Cluster.
func (k Keys) Conv(convID string) ConvKeys { return ConvKeys{base: k.prefix + "{conv:" + convID + "}"} }

// LongConn builds the keys of one long-connection bot, which share the hash
// tag {longconn:BOT}.
func (k Keys) LongConn(botID string) LongConnKeys {
	return LongConnKeys{prefix: k.prefix, botID: botID, base: k.prefix + "{longconn:" + botID + "}"}
}

// App builds the self-built app's keys.
func (k Keys) App() AppKeys { return AppKeys(k) }

// StopChannel is the pub/sub channel on which stop requests are announced
// (the message is the conversation id), so the holder stops at once.
func (k Keys) StopChannel() string { return k.prefix + "stop" }

// SteerChannel announces that a conversation's Steers list has a message
// for its running turn (the message is the conversation id).
func (k Keys) SteerChannel() string { return k.prefix + "steer" }

// Pending is the set of conversations that may have queued messages, which
// replicas poll for work. It spans conversations, so no script may touch it
// together with a {conv:ID} key. TTL QueueTTL, renewed on each add.
func (k Keys) Pending() string { return k.prefix + "pending" }

// Conversations is the sorted set of every conversation key that had a
// turn (score = its last use, unix ms), for `wecodex sessions`. It spans
// conversations, so no script touches it together with a {conv:ID} key;
// members older than ConversationTTL are dropped on each add. TTL
// ConversationTTL, renewed on each add.
func (k Keys) Conversations() string { return k.prefix + "conversations" }

// Backlog is the sorted set of a user's messages that wait for their turn
// in any conversation (member: conversation and stream; score: when it
// stops counting, unix ms), so access.max_queued_per_user holds across
// replicas. It is one key per user, touched alone. TTL QueueTTL, renewed
// on each add; each member counts at most QueueTTL too.
func (k Keys) Backlog(userID string) string { return k.prefix + "backlog:" + userID }

// Replica is a replica's heartbeat. TTL ReplicaTTL, renewed every third
// of it.
func (k Keys) Replica(replicaID string) string { return k.prefix + "replica:" + replicaID }

// Phase holds the phase of one agent message item of a thread (see
// Phases.SetPhase). TTL PhaseTTL.
func (k Keys) Phase(threadID, itemID string) string {
	return k.prefix + "phase:" + threadID + ":" + itemID
}

// Frame is a hash {state, owner, user, content}: the newest card frame of
// a webhook reply stream, so any replica can answer the refresh callback.
// TTL FrameTTL. (":webhook:frame:", not the ":frame:" string of the
// release before, so a replica of either version never meets the other's
// type; see LegacyFrame.)
func (k Keys) Frame(streamID string) string { return k.prefix + "webhook:frame:" + streamID }

// DataMark says this Redis still holds the data wecodex wrote: its absence
// when a frame is missing tells "Redis lost its data" (restarted empty,
// failed over) from "the stream is unknown". DataLoss is set, with the
// window it is told for as its TTL, when the mark was found gone. Both carry
// the hash tag {data}, so one script sets them together. TTL DataMarkTTL.
func (k Keys) DataMark() string { return k.prefix + "{data}:mark" }

// DataLoss exists for a while after the data mark was found gone (see
// Webhook.NoteMissingFrame). TTL: the window the caller passes.
func (k Keys) DataLoss() string { return k.prefix + "{data}:loss" }

// Fetches is the set of webhook streams whose message's files are being
// fetched (see Webhook.RecordFetch). Its keys share the hash tag
// {webhook:fetches}, so one script touches the set and a message's keys
// together. TTL FetchTTL, renewed on each add.
func (k Keys) Fetches() string { return k.prefix + "{webhook:fetches}" }

// Fetch is the message of a stream in Fetches, as the webhook recorded it.
// TTL FetchTTL.
func (k Keys) Fetch(streamID string) string { return k.prefix + "{webhook:fetches}:msg:" + streamID }

// FetchClaim names the process fetching a stream's files; it lapses when
// that process stops renewing it. TTL: the claim the caller passes.
func (k Keys) FetchClaim(streamID string) string {
	return k.prefix + "{webhook:fetches}:claim:" + streamID
}

// LegacyFrame is where the release before this one (f4bf939) kept a
// stream's frame, as one string: a state byte, an owner record and the
// content. It is only read, while a rolling deploy runs both releases
// side by side; its frames live FrameTTL. Remove with the release after.
func (k Keys) LegacyFrame(streamID string) string { return k.prefix + "frame:" + streamID }

// ApprovalChannel is the pub/sub channel on which decisions are announced
// ("conv\nid"), so the replica whose turn waits learns at once.
func (k Keys) ApprovalChannel() string { return k.prefix + "approval" }

// ApprovalSeq is the approval counter every conversation shares: each
// request takes the next value as its short id, so an id names one request
// across conversations and replicas, is never reused, and a decision naming
// one cannot decide a later request. No TTL: it only grows.
func (k Keys) ApprovalSeq() string { return k.prefix + "approval:seq" }

// ApprovalOwner holds the conversation key of approval request id, so a
// decision sent from any chat (an approver's own) finds the request. TTL
// ApprovalTTL.
func (k Keys) ApprovalOwner(id int64) string {
	return k.prefix + "approval:owner:" + strconv.FormatInt(id, 10)
}

// ApprovalsPending is the sorted set of every conversation's pending
// approval ids (score = id), for /pending. A member whose request is no
// longer pending is dropped when it is read. No TTL: members leave as they
// are decided.
func (k Keys) ApprovalsPending() string { return k.prefix + "approvals:pending" }

// AuditStream is the audit trail (audit.redis): a stream of one field "r",
// each a JSON record, every replica adding to it. No TTL: trimmed to
// audit.max_len entries as it grows, and to retention.audit's age.
func (k Keys) AuditStream() string { return k.prefix + "audit" }

// AuditSeq is a hash of each conversation's last audit sequence number
// (HINCRBY), so records of one conversation are numbered in order across
// replicas. No TTL: a number must never be given twice.
func (k Keys) AuditSeq() string { return k.prefix + "audit:seq" }

// LimitTurns counts user's turns in the clock hour starting at hour (unix
// seconds). TTL LimitTurnsTTL.
func (k Keys) LimitTurns(user string, hour int64) string {
	return k.prefix + "limit:turns:" + strconv.Itoa(len(user)) + ":" + user + ":" + strconv.FormatInt(hour, 10)
}

// LimitTokens counts the tokens of user's turns on the UTC day (YYYYMMDD).
// TTL LimitTokensTTL.
func (k Keys) LimitTokens(user, day string) string {
	return k.prefix + "limit:tokens:" + strconv.Itoa(len(user)) + ":" + user + ":" + day
}

// ConvKeys builds the keys of one conversation (Keys.Conv).
type ConvKeys struct{ base string }

// Dedupe is set when a sender's msgid is first seen in a conversation,
// together with the message's enqueueing (one script, hence the
// conversation's hash tag); its value is what the first delivery answered
// (the stream id), so the key is scoped by conversation and sender: another
// user's callback carrying the same msgid is not a repeat and never learns
// that stream. The sender is length-prefixed so no two scopes share a key.
// TTL DedupeTTL.
func (k ConvKeys) Dedupe(userID, msgID string) string {
	return k.base + ":dedupe:" + strconv.Itoa(len(userID)) + ":" + userID + ":" + msgID
}

// Session is a hash of a conversation's ACP session (Codex thread) id, cwd,
// mode, and its last use and user. TTL ConversationTTL.
func (k ConvKeys) Session() string { return k.base + ":session" }

// Lease holds the token of the replica running the conversation's turn now.
// TTL LeaseTTL, renewed every third of it.
func (k ConvKeys) Lease() string { return k.base + ":lease" }

// Fence is the conversation's fencing counter: each new lease takes the next
// value, so a writer with an older value knows it lost the lease. TTL FenceTTL.
func (k ConvKeys) Fence() string { return k.base + ":fence" }

// Running holds the queue item of the turn the lease holder runs now, from
// the script that pops it until the holder takes the next one or releases
// the lease. Found with no lease, it names a turn whose holder died mid-turn.
// TTL RunningTTL, renewed with the lease.
func (k ConvKeys) Running() string { return k.base + ":running" }

// Queue is the list of the conversation's messages waiting for the lease.
// TTL QueueTTL.
func (k ConvKeys) Queue() string { return k.base + ":queue" }

// Stop holds the lease token of a turn someone asked to stop, so the holder
// sees the request on its next renewal even if it missed the announcement on
// StopChannel. TTL LeaseTTL.
func (k ConvKeys) Stop() string { return k.base + ":stop" }

// Steers is the list of messages waiting to be added to the running turn
// (/steer, agent.busy: steer), oldest first, as queue items; the lease
// holder takes them when SteerChannel announces them. TTL LeaseTTL: a
// steer the holder never took is not added to a later turn.
func (k ConvKeys) Steers() string { return k.base + ":steers" }

// Rest holds the end of a long answer that no reply could carry, until the
// user asks for it with /more: a hash of the whole answer, where the unread
// part starts, and the prompt it answers. TTL RestTTL.
func (k ConvKeys) Rest() string { return k.base + ":rest" }

// Owner names the replica whose CODEX_HOME holds the conversation's thread;
// while that replica's Replica key lives, only it takes the queue.
// TTL ConversationTTL.
func (k ConvKeys) Owner() string { return k.base + ":owner" }

// Attachment holds the bytes of one attachment (by its index in the
// message) of the message intake accepted on stream, until the turn that runs
// it wrote them into the workspace and finished. It is keyed by the stream,
// the id intake gives each accepted delivery, not by the platform's msgid:
// a retry of a delivery, or another sender's message reusing the msgid,
// stores and deletes its own bytes and never a queued message's.
// TTL AttachmentTTL.
func (k ConvKeys) Attachment(stream string, index int) string {
	return k.base + ":attachment:" + stream + ":" + strconv.Itoa(index)
}

// Approval is a hash of one approval request: the request (what the engine
// recorded, JSON), its status ("pending" or "decided") and the decision.
// TTL ApprovalTTL.
func (k ConvKeys) Approval(id int64) string {
	return k.base + ":approval:" + strconv.FormatInt(id, 10)
}

// Approvals is the sorted set of the conversation's pending approval ids
// (score = id), so "the oldest" is its first member. TTL ApprovalTTL.
func (k ConvKeys) Approvals() string { return k.base + ":approvals" }

// Grants is the set of what approvers' /approve always let the
// conversation's agent do again without asking (JSON records the engine
// writes, each naming its agent session). TTL ConversationTTL, renewed on
// each add: a grant never outlives the session it names.
func (k ConvKeys) Grants() string { return k.base + ":grants" }

// ThreadsKept is how many of a conversation's threads the store remembers
// (ConvKeys.Threads): the ones it used last. A chat lists them in one reply.
const ThreadsKept = 10

// Threads is the sorted set of the agent sessions (Codex threads) the
// conversation used (score = its last use, unix ms), newest ThreadsKept
// only: /sessions lists them, and /resume and /fork take one by its place
// in that list, never by an id. TTL ConversationTTL, renewed on each add.
func (k ConvKeys) Threads() string { return k.base + ":threads" }

// ThreadRecords is the hash of what the engine recorded about each member
// of Threads (its first words, name, project: the engine's JSON), dropped
// with the member. TTL ConversationTTL, renewed with Threads.
func (k ConvKeys) ThreadRecords() string { return k.base + ":threads:records" }

// Match is the SCAN pattern of every key above (wecodex purge finds them
// by it: a key added here is purged without more code).
func (k ConvKeys) Match() string { return globEscape(k.base) + ":*" }

// LongConnKeys builds the keys of one long-connection bot (Keys.LongConn).
type LongConnKeys struct{ prefix, botID, base string }

// Holder is the long connection's holder lease for a bot: a hash {token,
// replica}. TTL HolderTTL, renewed every HolderRenewEvery.
func (k LongConnKeys) Holder() string { return k.base + ":holder" }

// HolderFence is the bot's holder fencing counter: each new holder takes the
// next value. TTL FenceTTL.
func (k LongConnKeys) HolderFence() string { return k.base + ":fence" }

// Stream is a hash {seq, frame, ended}: the newest frame of one reply
// stream (by the callback's req_id) for the holder to push, and whether
// the stream is over. TTL LongConnStreamTTL. (":frame:", not the
// ":stream:" of the string keys before it, so a replica of either version
// never meets the other's type.)
func (k LongConnKeys) Stream(reqID string) string { return k.base + ":frame:" + reqID }

// Streams is the set of req_ids whose stream has not finished, which a new
// holder re-pushes. TTL LongConnStreamTTL, renewed on each add.
func (k LongConnKeys) Streams() string { return k.base + ":streams" }

// FramesChannel is the pub/sub channel on which a new frame's req_id is
// announced to the holder.
func (k LongConnKeys) FramesChannel() string { return k.prefix + "longconn:" + k.botID + ":frames" }

// Sends is the hash of proactive sends (aibot_send_msg bodies, by send id)
// waiting for the holder, which takes each once. TTL LongConnStreamTTL,
// renewed on each add.
func (k LongConnKeys) Sends() string { return k.base + ":sends" }

// SendsChannel is the pub/sub channel on which a new send's id is
// announced to the holder.
func (k LongConnKeys) SendsChannel() string { return k.prefix + "longconn:" + k.botID + ":sends" }

// AppKeys builds the self-built app's keys (Keys.App).
type AppKeys struct{ prefix string }

// Cache is the namespace lent to silenceper/wechat's cache.Cache, which names
// its own keys (and sets their TTLs: WeCom's expires_in − 1500 s) for the
// app's access token. It shares CacheFill's hash tag, for the script that
// stores one and frees the other.
func (k AppKeys) Cache(name string) string { return k.prefix + "{cache:" + name + "}" }

// CacheFill is held by the replica that fetches the value of Cache(name)
// (the app's access token) while it does, so the other replicas wait for
// that value instead of fetching their own. TTL: the fetch's bound, given by
// the caller.
func (k AppKeys) CacheFill(name string) string { return k.Cache(name) + ":fill" }

// Pace is the sorted set of a self-built app's message/send times to one
// user (score unix ms), reserved ahead so every replica keeps within WeCom's
// per-user rate; PaceSeq numbers the members. They share a hash tag, for
// the one script that touches both. TTL AppPaceTTL.
func (k AppKeys) Pace(agentID, userID string) string { return k.pace(agentID, userID) + ":sends" }

// PaceSeq: see Pace.
func (k AppKeys) PaceSeq(agentID, userID string) string { return k.pace(agentID, userID) + ":seq" }

func (k AppKeys) pace(agentID, userID string) string {
	return k.prefix + "{app:" + agentID + ":" + userID + "}:pace"
}

// Card holds the response_code of a reply stream's progress card, taken
// (deleted) by the one update it allows. TTL AppCardTTL.
func (k AppKeys) Card(streamID string) string { return k.prefix + "app:card:" + streamID }

// Finished is set once a reply stream's end (the card update and the
// answer) went out, so a lost turn's failure, shown on another replica, is
// never sent after it or twice. TTL AppCardTTL.
func (k AppKeys) Finished(streamID string) string { return k.prefix + "app:finished:" + streamID }

// ScheduleSlotTTL: a slot's claim only has to outlive the moment every
// replica's scheduler looks at that slot (each looks once, when the slot
// comes, or at its start for a catch-up, which the schedule's last-run
// record decides); a day covers any clock skew and stalled replica.
const ScheduleSlotTTL = 24 * time.Hour

// TriggerSeenTTL: a trigger request is accepted only within 5 minutes of
// its timestamp, so a signature seen needs remembering only that long, with
// a margin for clock skew.
const TriggerSeenTTL = 15 * time.Minute

// Schedule builds the keys of one schedule (a YAML job or a chat one, by
// its id). They share the hash tag {sched:ID}, so the claim script touches
// them together in a Cluster.
func (k Keys) Schedule(id string) ScheduleKeys {
	return ScheduleKeys{base: k.prefix + "{sched:" + id + "}"}
}

// ChatSchedules is the hash of the schedules made from the chat: id → the
// schedule as JSON. No TTL: they live until /schedule rm.
func (k Keys) ChatSchedules() string { return k.prefix + "schedules:chat" }

// ChatScheduleSeq numbers the chat schedules, so an id is never reused.
// No TTL: it only grows.
func (k Keys) ChatScheduleSeq() string { return k.prefix + "schedules:seq" }

// TriggerSeen is set when a trigger's signature is first accepted, so a
// replayed request runs nothing. TTL TriggerSeenTTL.
func (k Keys) TriggerSeen(name, signature string) string {
	return k.prefix + "trigger:" + name + ":seen:" + signature
}

// ScheduleKeys builds the keys of one schedule (Keys.Schedule).
type ScheduleKeys struct{ base string }

// Slot is set by the replica that claimed the schedule's slot at unix
// second at. TTL ScheduleSlotTTL.
func (k ScheduleKeys) Slot(at int64) string { return k.base + ":slot:" + strconv.FormatInt(at, 10) }

// Last holds the unix second of the newest slot that was claimed, so a
// deployment that was down over slots knows what it missed. No TTL: it
// lives as long as the schedule (a chat schedule's rm deletes it).
func (k ScheduleKeys) Last() string { return k.base + ":last" }
