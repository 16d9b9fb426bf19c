package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/user"
	"path/filepath"
	"strings"
	"time"

	"github.com/wecodex/wecodex/acpbridge/codex"
	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/cli"
	"github.com/wecodex/wecodex/configs"
	"github.com/wecodex/wecodex/retention"
	"github.com/wecodex/wecodex/store"
)

// cmdPurge removes everything of one user on request (issue 27 item 6):
// their conversations' state, Codex threads, workspaces with their
// attachments, and audit records; it prints what it removed and leaves one
// audit record (kind admin) that it ran.
func cmdPurge(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("wecodex purge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f cli.ConfigFlags
	var who string
	f.AddTo(fs)
	fs.StringVar(&who, "user", "", "the `USERID` whose content is removed")
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		return cli.ExitOK
	} else if err != nil {
		return cli.ExitUsage
	}
	f.Seen(fs)
	if who == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "wecodex purge: --user USERID is required, and nothing else")
		return cli.ExitUsage
	}
	lc, code, ok := cli.LoadChecked("purge", f, stderr, checkSchedules)
	if !ok {
		return code
	}
	if len(lc.Redis.Addrs()) == 0 {
		fmt.Fprintln(stderr, "wecodex purge: redis.addr is empty: serve's embedded Redis lives inside serve; set redis.addr to the Redis serve uses")
		return cli.ExitError
	}
	if err := purge(lc.Config, who, stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "wecodex purge: %v\n", err)
		return cli.ExitError
	}
	return cli.ExitOK
}

func purge(cfg *configs.Config, who string, stdout, stderr io.Writer) error {
	return withStore(cfg, stderr, 10*time.Minute, func(ctx context.Context, db *store.DB, log *slog.Logger) error {
		return purgeWith(ctx, cfg, db, who, stdout, stderr, log)
	})
}

func purgeWith(ctx context.Context, cfg *configs.Config, db *store.DB, who string, stdout, stderr io.Writer, log *slog.Logger) error {
	root, err := filepath.Abs(cfg.Agent.WorkspaceRoot)
	if err != nil {
		return fmt.Errorf("agent.workspace_root %s: %w", cfg.Agent.WorkspaceRoot, err)
	}
	o := retention.PurgeOptions{User: who, Store: store.NewConversations(db), Used: store.NewThreads(db), WorkspaceRoot: root, AuditFile: cfg.Audit.File}
	if cfg.Audit.Redis {
		o.Stream = store.NewAudit(db)
	}
	if cfg.Agent.Kind == configs.AgentCodex {
		env, err := cli.CodexEnv(cfg.Agent.Codex)
		if err != nil {
			return err
		}
		a := codex.New(codex.Options{Bin: cfg.Agent.Codex.Bin, Env: env, Config: withHistoryRetention(nil, cfg.Retention), Logger: log,
			SnapshotDir: snapshotDir(cfg)}) // /undo's copies of the threads' files go with them
		defer a.Close()
		o.Agent = a
	} else {
		fmt.Fprintln(stderr, "wecodex purge: agent.kind acp: the agent's threads are not listed to wecodex and are kept")
	}
	r, err := retention.Purge(ctx, o)
	printPurge(stdout, who, r)
	if aerr := auditPurge(ctx, cfg, db, who, r, err); aerr != nil {
		err = errors.Join(err, aerr)
	}
	return err
}

// printPurge says what was removed, one line per kind and one per item.
func printPurge(w io.Writer, who string, r retention.PurgeReport) {
	fmt.Fprintf(w, "purged user %s\n", who)
	fmt.Fprintf(w, "conversations: %d (%d Redis keys)\n", len(r.Conversations), r.Keys)
	for _, c := range r.Conversations {
		fmt.Fprintf(w, "  %s\n", c)
	}
	fmt.Fprintf(w, "codex threads: %d\n", len(r.Threads))
	for _, t := range r.Threads {
		fmt.Fprintf(w, "  %s\n", t)
	}
	fmt.Fprintf(w, "workspaces: %d\n", len(r.Workspaces))
	for _, d := range r.Workspaces {
		fmt.Fprintf(w, "  %s\n", d)
	}
	fmt.Fprintf(w, "audit records: %d from the stream, %d lines from audit.file\n", r.AuditRecords, r.AuditLines)
}

// auditPurge writes the one record that the purge ran (kind admin), by the
// operating-system user who ran it.
func auditPurge(ctx context.Context, cfg *configs.Config, db *store.DB, who string, r retention.PurgeReport, failed error) error {
	host, _ := os.Hostname()
	l, err := openAudit(cfg, db, "purge@"+host, slog.New(slog.DiscardHandler))
	if err != nil || l == nil {
		return err
	}
	detail := fmt.Sprintf("removed %d conversations, %d threads, %d workspaces, %d audit records from the stream, %d lines from audit.file",
		len(r.Conversations), len(r.Threads), len(r.Workspaces), r.AuditRecords, r.AuditLines)
	if failed != nil {
		detail += "; then failed: " + strings.SplitN(failed.Error(), "\n", 2)[0]
	}
	l.Audit(ctx, bot.AuditEvent{Kind: bot.AuditAdmin, User: operator(), Channel: "cli", Command: "wecodex purge --user " + who, Detail: detail})
	return l.Close()
}

// operator is who runs this command, as the audit record names them.
func operator() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	if u := os.Getenv("USER"); u != "" {
		return u
	}
	return "unknown"
}
