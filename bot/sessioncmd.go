package bot

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge"
)

// sessionEntry is one session of a conversation's list (/sessions), as
// the store recorded it and the agent knows it.
type sessionEntry struct {
	id   string
	rec  threadRecord
	used time.Time
	info acpbridge.ThreadInfo // zero when the agent does not know it
}

// label is how the session is called: its name, else its first words.
func (e sessionEntry) label() string {
	for _, s := range []string{e.rec.Name, e.info.Name, e.rec.First, firstWords(e.info.Preview)} {
		if s != "" {
			return s
		}
	}
	return textNoWords
}

// sessionList is conv's sessions, most recently used first: what /sessions
// numbers and /resume and /fork take by number. What the agent adds
// (names, first words) is left out when it cannot say.
func (in *intake) sessionList(ctx context.Context, conv string) ([]sessionEntry, error) {
	list, err := in.recordedSessions(ctx, conv)
	if err != nil || in.cfg.Threads == nil || len(list) == 0 {
		return list, err
	}
	ids := make([]string, len(list))
	for i, e := range list {
		ids[i] = e.id
	}
	infos, err := in.cfg.Threads.ThreadInfo(ctx, ids)
	if err != nil {
		in.log.Warn("the agent cannot list its threads; /sessions shows what wecodex recorded", "conv", conv, "err", err)
		return list, nil
	}
	for i := range list {
		list[i].info = infos[list[i].id]
	}
	return list, nil
}

// recordedSessions is conv's sessions as wecodex recorded them, most
// recently used first, without what the agent knows of them.
func (in *intake) recordedSessions(ctx context.Context, conv string) ([]sessionEntry, error) {
	ids, recs, used, err := in.threads.UsedThreads(ctx, conv)
	if err != nil {
		return nil, err
	}
	list := make([]sessionEntry, len(ids))
	for i, id := range ids {
		list[i] = sessionEntry{id: id, used: used[i]}
		if recs[i] != nil {
			if err := json.Unmarshal(recs[i], &list[i].rec); err != nil {
				in.log.Warn("unreadable session record; listed without it", "conv", conv, "session", id, "err", err)
			}
		}
	}
	return list, nil
}

func runSessions(ctx context.Context, in *intake, _ Channel, m Message, _ string) (string, error) {
	if in.threads == nil {
		return textSessionsUnavailable, nil
	}
	conv := m.Conversation.Key()
	list, err := in.sessionList(ctx, conv)
	if err != nil {
		return "", fmt.Errorf("/sessions in %s: %w", conv, err)
	}
	current, _, err := in.store.Conversation(ctx, conv)
	if err != nil {
		return "", fmt.Errorf("/sessions in %s: %w", conv, err)
	}
	return sessionsText(list, current), nil
}

func sessionsText(list []sessionEntry, current string) string {
	if len(list) == 0 {
		return textNoSessions
	}
	var b strings.Builder
	b.WriteString(textSessionsHead + "\n")
	for i, e := range list {
		mark := ""
		if e.id == current {
			mark = "▶ "
		}
		fmt.Fprintf(&b, "%d. %s“%s” — %s", i+1, mark, e.label(), e.used.UTC().Format("2006-01-02 15:04 UTC"))
		if e.rec.Project != "" {
			b.WriteString(" · `" + e.rec.Project + "`")
		}
		if e.rec.ForkOf != "" {
			b.WriteString(" · fork")
		}
		b.WriteString("\n")
	}
	b.WriteString("\n" + textSessionsHint)
	return b.String()
}

// picked is the session /resume or /fork took from the list.
type picked struct {
	sessionEntry
	n int
	// current is the session the conversation is on now; cwd is where
	// the picked one works.
	current, cwd string
}

// pickSession is the session /resume or /fork names by its number in the
// conversation's list; refusal, when not empty, is the answer instead.
// Only a number is taken: a session id someone typed (guessed, or seen in
// another conversation) never reaches the agent.
func (in *intake) pickSession(ctx context.Context, m Message, word string) (p picked, refusal string, err error) {
	conv := m.Conversation.Key()
	args := strings.Fields(m.Text)[1:]
	if len(args) == 1 {
		p.n, err = strconv.Atoi(args[0])
	}
	if len(args) != 1 || err != nil || p.n < 1 {
		return p, fmt.Sprintf(textPickUsage, word), nil
	}
	if _, token, err := in.store.Lease(ctx, conv); err != nil || token != 0 {
		return p, fmt.Sprintf(textPickBusy, word, p.n), err
	}
	list, err := in.sessionList(ctx, conv)
	switch {
	case err != nil:
		return p, "", err
	case len(list) == 0:
		return p, textNoSessions, nil
	case p.n > len(list):
		return p, fmt.Sprintf(textNoSuchSession, p.n, len(list)), nil
	}
	p.sessionEntry = list[p.n-1]
	if refusal, err := in.elsewhere(ctx, m, p, word); refusal != "" || err != nil {
		return p, refusal, err
	}
	if p.current, p.cwd, err = in.store.Conversation(ctx, conv); err != nil {
		return p, "", err
	}
	if p.rec.Cwd != "" {
		p.cwd = p.rec.Cwd
	}
	return p, "", nil
}

// elsewhere is the refusal of a session that worked in another project
// than the conversation does now: continued here, it would run in a
// directory the conversation no longer works in.
func (in *intake) elsewhere(ctx context.Context, m Message, p picked, word string) (string, error) {
	// A session used before wecodex kept records has none to check; it
	// was the conversation's where it worked then.
	if in.cfg.Projects == nil || p.rec.Created == 0 {
		return "", nil
	}
	project, err := currentProject(ctx, in.cfg.Projects, in.store, m.Conversation, m.User)
	switch {
	case err != nil || p.rec.Project == project:
		return "", err
	case p.rec.Project == "":
		return fmt.Sprintf(textOwnWorkspace, p.n), nil
	}
	return fmt.Sprintf(textOtherProject, p.n, p.rec.Project, p.rec.Project, word, p.n), nil
}

func runResume(ctx context.Context, in *intake, _ Channel, m Message, word string) (string, error) {
	if in.threads == nil {
		return textSessionsUnavailable, nil
	}
	conv := m.Conversation.Key()
	p, refusal, err := in.pickSession(ctx, m, word)
	if err != nil || refusal != "" {
		return refusal, wrapCmd(word, conv, err)
	}
	if p.id == p.current {
		return fmt.Sprintf(textResumeCurrent, p.n), nil
	}
	if err := in.switchSession(ctx, conv, p.id, p.cwd, nil); err != nil {
		return "", wrapCmd(word, conv, err)
	}
	in.log.Info("session resumed", "conv", conv, "user", m.User, "session", p.id)
	in.auditSetting(ctx, m, "session", "resume "+p.id)
	return fmt.Sprintf(textResumed, p.n, p.label()), nil
}

func runFork(ctx context.Context, in *intake, _ Channel, m Message, word string) (string, error) {
	if in.threads == nil {
		return textSessionsUnavailable, nil
	}
	if in.cfg.Threads == nil {
		return textForkUnavailable, nil
	}
	conv := m.Conversation.Key()
	p, refusal, err := in.pickSession(ctx, m, word)
	if err != nil || refusal != "" {
		return refusal, wrapCmd(word, conv, err)
	}
	fork, err := in.cfg.Threads.ForkThread(ctx, acp.SessionId(p.id), p.cwd)
	if err != nil {
		in.log.Warn("fork a session", "conv", conv, "session", p.id, "err", err)
		return fmt.Sprintf(textForkFailed, p.n), nil
	}
	rec := threadRecord{First: p.label(), Project: p.rec.Project, Cwd: p.cwd, ForkOf: p.id, Created: time.Now().UnixMilli()}
	if err := in.switchSession(ctx, conv, string(fork), p.cwd, &rec); err != nil {
		return "", wrapCmd(word, conv, err)
	}
	in.log.Info("session forked", "conv", conv, "user", m.User, "session", p.id, "fork", fork)
	in.auditSetting(ctx, m, "session", "fork "+p.id+" as "+string(fork))
	return fmt.Sprintf(textForked, p.n, p.label()), nil
}

// switchSession makes session id, working in cwd, the conversation's, and
// first on its list; rec, when set, is recorded as what it is.
func (in *intake) switchSession(ctx context.Context, conv, id, cwd string, rec *threadRecord) error {
	var body []byte
	if rec != nil {
		var err error
		if body, err = json.Marshal(rec); err != nil {
			return err
		}
	}
	// Listed first, so the session the conversation is on is never
	// missing from /sessions (the store keeps only the newest).
	if err := in.threads.RecordThread(ctx, conv, id, body, time.Now()); err != nil {
		return err
	}
	return in.store.SaveConversation(ctx, conv, id, cwd)
}

func runName(ctx context.Context, in *intake, _ Channel, m Message, word string) (string, error) {
	if in.threads == nil {
		return textSessionsUnavailable, nil
	}
	conv := m.Conversation.Key()
	_, rest, _ := strings.Cut(strings.TrimSpace(m.Text), " ")
	name := firstWords(rest)
	if name == "" {
		return textNameUsage, nil
	}
	current, cwd, err := in.store.Conversation(ctx, conv)
	if err != nil || current == "" {
		return textNameNoSession, wrapCmd(word, conv, err)
	}
	list, err := in.sessionList(ctx, conv)
	if err != nil {
		return "", wrapCmd(word, conv, err)
	}
	rec := threadRecord{Cwd: cwd}
	for _, e := range list {
		if e.id == current {
			rec = e.rec
		}
	}
	rec.Name = name
	if err := in.switchSession(ctx, conv, current, cwd, &rec); err != nil {
		return "", wrapCmd(word, conv, err)
	}
	in.auditSetting(ctx, m, "session", "name "+current)
	if in.cfg.Threads != nil {
		if err := in.cfg.Threads.NameThread(ctx, acp.SessionId(current), name); err != nil {
			in.log.Warn("name the agent's thread; the name is wecodex's only", "conv", conv, "session", current, "err", err)
			return fmt.Sprintf(textNamedHere, name), nil
		}
	}
	return fmt.Sprintf(textNamed, name), nil
}

// wrapCmd says which command in which conversation failed; nil stays nil.
func wrapCmd(word, conv string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s in %s: %w", word, conv, err)
}

const (
	textSessionsUnavailable = "Sessions are not recorded here."
	textNoSessions          = "This conversation has no sessions yet: the next message starts one."
	textSessionsHead        = "**Sessions** of this conversation (▶ the one it is on)"
	textSessionsHint        = "`/resume <n>` continues one, `/fork <n>` branches one into a new session, `/name <text>` names the current one."
	textNoWords             = "(no words recorded)"
	textPickUsage           = "`%s <n>` takes the number of a session on `/sessions`."
	textPickBusy            = "A turn is running here: `%s %d` once it has ended (or `/stop` it first)."
	textNoSuchSession       = "There is no session %d here: `/sessions` lists this conversation's %d."
	textOtherProject        = "Session %d works in project `%s`, not where this conversation works now: switch with `/project %s` first, then `%s %d`."
	textOwnWorkspace        = "Session %d works in this conversation's own workspace, outside the projects it works in now: it cannot be continued here."
	textResumeCurrent       = "Session %d is already this conversation's: the next message continues it."
	textResumed             = "OK — this conversation is on session %d, “%s”, again: the next message continues it."
	textForkUnavailable     = "This agent cannot fork sessions."
	textForkFailed          = "Session %d could not be forked (the log says why): this conversation stays on its session."
	textForked              = "OK — session %d, “%s”, is forked: the next message continues the new branch, and the original stays as it was."
	textNameUsage           = "`/name <text>` names this conversation's current session."
	textNameNoSession       = "This conversation has no session yet: the next message starts one, which `/name` can name then."
	textNamed               = "OK — this session is named “%s”."
	textNamedHere           = "OK — this session is named “%s” here (the agent did not take the name: the log says why)."
)
