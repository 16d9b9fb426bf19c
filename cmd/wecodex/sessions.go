package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/wecodex/wecodex/cli"
	"github.com/wecodex/wecodex/configs"
	"github.com/wecodex/wecodex/projects"
	"github.com/wecodex/wecodex/store"
)

// cmdSessions lists the conversations the shared Redis knows, newest
// first, each with its project, worktree, branch, Codex thread and last
// use, and the command that continues its thread in a terminal (issue 25,
// WeCom ⇄ terminal). It reads only; it needs the Redis serve uses.
func cmdSessions(args []string, stdout, stderr io.Writer) int {
	f, filter, err := parseSessionsFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return cli.ExitOK
	}
	if err != nil {
		return cli.ExitUsage
	}
	lc, code, ok := cli.LoadChecked("sessions", f, stderr, checkSchedules)
	if !ok {
		return code
	}
	if len(lc.Redis.Addrs()) == 0 {
		fmt.Fprintln(stderr, "wecodex sessions: redis.addr is empty: serve's embedded Redis lives inside serve, so there is nothing to read here; set redis.addr to the Redis serve uses")
		return cli.ExitError
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db, err := store.Open(ctx, store.Options{Addrs: lc.Redis.Addrs(), MasterName: lc.Redis.MasterName,
		Password: lc.Redis.Password, DB: lc.Redis.DB, Prefix: lc.Redis.Prefix}, slog.New(slog.DiscardHandler))
	if err != nil {
		fmt.Fprintf(stderr, "wecodex sessions: open redis: %v\n", err)
		return cli.ExitError
	}
	defer func() { _ = db.Close() }()
	records, err := listConversations(ctx, store.NewConversations(db), filter.conversation)
	if err != nil {
		fmt.Fprintf(stderr, "wecodex sessions: %v (redis.addr %s)\n", err, strings.Join(lc.Redis.Addrs(), ","))
		return cli.ExitError
	}
	t := terminal{home: lc.Agent.Codex.CodexHome(os.Getenv), bin: lc.Agent.Codex.Bin}
	reg, err := sessionProjects(lc.Config)
	if err != nil {
		fmt.Fprintf(stderr, "wecodex sessions: %v\n", err)
		return cli.ExitError
	}
	shown := 0
	for _, r := range records {
		s := sessionOf(r, reg)
		if filter.project != "" && s.project != filter.project {
			continue
		}
		if shown > 0 {
			fmt.Fprintln(stdout)
		}
		fmt.Fprint(stdout, s.describe(t))
		shown++
	}
	if shown == 0 {
		fmt.Fprintln(stderr, "wecodex sessions: no conversation matches")
		return cli.ExitOK
	}
	// Said where it is read: Codex refuses the command while the bot holds
	// the thread.
	fmt.Fprintf(stderr, "wecodex sessions: the bot lets go of a thread agent.codex.idle_unload (%s) after its last turn; until then codex refuses to resume it (\"already has an active writer\")\n", lc.Agent.Codex.IdleUnload)
	return cli.ExitOK
}

// sessionsFilter is what --conversation and --project ask for ("" = any).
type sessionsFilter struct{ conversation, project string }

func parseSessionsFlags(args []string, stderr io.Writer) (cli.ConfigFlags, sessionsFilter, error) {
	fs := flag.NewFlagSet("wecodex sessions", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := cli.ConfigFlags{}
	var filter sessionsFilter
	f.AddTo(fs)
	fs.StringVar(&filter.conversation, "conversation", "", "list only the conversation with this `KEY` (single:alice, group:wrkChat1)")
	fs.StringVar(&filter.project, "project", "", "list only the conversations of the project `NAME`")
	if err := fs.Parse(args); err != nil {
		return f, filter, err
	}
	if err := cli.NoArgs("sessions", fs, stderr); err != nil {
		return f, filter, err
	}
	f.Seen(fs)
	return f, filter, nil
}

// conversationLister is the part of the store sessions reads.
type conversationLister interface {
	ListConversations(ctx context.Context) ([]store.ConversationRecord, error)
	ConversationRecord(ctx context.Context, conv string) (store.ConversationRecord, bool, error)
}

// listConversations is every listed conversation, or the one named key
// (found even when the list lost it).
func listConversations(ctx context.Context, s conversationLister, key string) ([]store.ConversationRecord, error) {
	if key == "" {
		return s.ListConversations(ctx)
	}
	r, ok, err := s.ConversationRecord(ctx, key)
	if err != nil || !ok {
		return nil, err
	}
	return []store.ConversationRecord{r}, nil
}

// session is one conversation as sessions prints it.
type session struct {
	key, project, worktree, branch, thread, user string
	used                                         time.Time
}

// sessionOf is r as sessions prints it: its project and branch are those
// of the directory it works in, as the registry (reg, nil without
// projects) lays them out.
func sessionOf(r store.ConversationRecord, reg *projects.Registry) session {
	s := session{key: r.Key, worktree: r.Cwd, thread: r.Session, user: r.User, used: r.Used}
	if reg == nil || r.Cwd == "" {
		return s
	}
	if w, _, ok := reg.ForDir(filepath.Clean(r.Cwd)); ok {
		s.project, s.branch = w.Project, w.Branch
	}
	return s
}

// sessionProjects is the registry serve builds, only to name the project
// and branch of a directory (it touches no disk).
func sessionProjects(cfg *configs.Config) (*projects.Registry, error) {
	return newProjects(cfg, slog.New(slog.DiscardHandler))
}

// terminal is how a thread is continued in a terminal: Codex (the bot's
// agent.codex.bin) with the bot's CODEX_HOME, where the threads live.
type terminal struct{ home, bin string }

// resume is the shell command that continues thread in worktree.
func (t terminal) resume(worktree, thread string) string {
	return "cd " + shellQuote(worktree) + " && CODEX_HOME=" + shellQuote(t.home) + " " + shellQuote(t.bin) + " resume " + shellQuote(thread)
}

// describe is s as lines of "name: value", the continue command last.
func (s session) describe(t terminal) string {
	var b strings.Builder
	line := func(name, value string) {
		if value == "" {
			value = "-"
		}
		fmt.Fprintf(&b, "  %-9s %s\n", name+":", value)
	}
	fmt.Fprintln(&b, s.key)
	line("project", s.project)
	line("worktree", s.worktree)
	line("branch", s.branch)
	line("thread", s.thread)
	used := ""
	if !s.used.IsZero() {
		used = s.used.UTC().Format(time.RFC3339) + " by " + s.user
	}
	line("last use", used)
	switch {
	case s.thread == "":
		line("continue", "no thread yet (or /new dropped it): the next message starts one")
	case s.worktree == "":
		line("continue", "no worktree recorded")
	default:
		line("continue", t.resume(s.worktree, s.thread))
	}
	return b.String()
}

// shellSafe is what a POSIX shell reads as one word unquoted.
var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_./:@%+=,-]+$`)

// shellQuote makes s one word for a POSIX shell.
func shellQuote(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
