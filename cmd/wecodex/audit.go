package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/wecodex/wecodex/audit"
	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/cli"
	"github.com/wecodex/wecodex/configs"
	"github.com/wecodex/wecodex/store"
)

// openAudit is the audit trail cfg asks for, nil when audit.file and
// audit.redis are both off.
func openAudit(cfg *configs.Config, db *store.DB, replica string, log *slog.Logger) (*audit.Log, error) {
	if !cfg.Audit.Enabled() {
		return nil, nil
	}
	opts := audit.Options{Replica: replica, Seq: store.NewAudit(db), File: cfg.Audit.File, MaxLen: cfg.Audit.MaxLen,
		IncludeText: cfg.Audit.IncludeText, Secrets: configSecrets(cfg), Logger: log}
	if cfg.Audit.Redis {
		opts.Stream = store.NewAudit(db)
	}
	l, err := audit.Open(opts)
	if err != nil {
		return nil, err
	}
	log.Info("audit trail", "file", cfg.Audit.File, "redis", cfg.Audit.Redis, "include_text", cfg.Audit.IncludeText)
	return l, nil
}

// auditor is l as the engine's Auditor (nil: none, the engine's default).
func auditor(l *audit.Log) bot.Auditor {
	if l == nil {
		return nil
	}
	return l
}

// configSecrets are every secret value of cfg: its own keys and the
// environment secrets it hands Codex (agent.codex.env_file).
func configSecrets(cfg *configs.Config) []string {
	out := cfg.SecretValues()
	for name := range cfg.Agent.Codex.EnvFile {
		if v := cfg.Agent.Codex.Env[name]; v != "" {
			out = append(out, v)
		}
	}
	return out
}

// engineLimits is limits.* for the engine.
func engineLimits(cfg *configs.Config) bot.Limits {
	return bot.Limits{TurnsPerHour: cfg.Limits.TurnsPerUserPerHour, TokensPerDay: cfg.Limits.TokensPerUserPerDay}
}

// auditFlags are the flags `wecodex audit` and `wecodex usage` share.
type auditFlags struct {
	cli.ConfigFlags
	since string
	audit.Filter
	table bool
}

func parseAuditFlags(name string, args []string, defaultSince string, stderr io.Writer) (auditFlags, error) {
	fs := flag.NewFlagSet("wecodex "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f auditFlags
	f.AddTo(fs)
	fs.StringVar(&f.since, "since", defaultSince, "only records of the last `AGE` (like 1h or 7d); empty: all")
	if name == "audit" {
		fs.StringVar(&f.User, "user", "", "only the records of this `USERID`")
		fs.StringVar(&f.Conversation, "conversation", "", "only the records of this conversation `KEY` (single:alice, group:CHATID)")
		fs.StringVar(&f.Kind, "kind", "", "only records of this `KIND` (message, turn_started, turn_ended, command, patch, approval_asked, approval_decided, setting, admin, refused)")
		fs.BoolVar(&f.table, "table", false, "print a table instead of JSON lines")
	}
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "wecodex %s: unexpected argument %q\n", name, fs.Arg(0))
		return f, errors.New("unexpected argument")
	}
	f.Seen(fs)
	if f.since != "" {
		age, err := audit.ParseAge(f.since)
		if err != nil {
			fmt.Fprintf(stderr, "wecodex %s: --since: %v\n", name, err)
			return f, err
		}
		f.Since = time.Now().Add(-age)
	}
	return f, nil
}

// cmdAudit prints the audit records the flags pick, oldest first.
func cmdAudit(args []string, stdout, stderr io.Writer) int {
	f, err := parseAuditFlags("audit", args, "", stderr)
	if errors.Is(err, flag.ErrHelp) {
		return cli.ExitOK
	}
	if err != nil {
		return cli.ExitUsage
	}
	var records []audit.Record
	err = readAudit(f, stderr, func(r audit.Record) {
		if f.Match(r) {
			records = append(records, r)
		}
	})
	if err != nil {
		fmt.Fprintf(stderr, "wecodex audit: %v\n", err)
		return cli.ExitError
	}
	if f.table {
		err = audit.WriteTable(stdout, records)
	} else {
		enc := json.NewEncoder(stdout)
		for _, r := range records {
			if err = enc.Encode(r); err != nil {
				break
			}
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "wecodex audit: %v\n", err)
		return cli.ExitError
	}
	return cli.ExitOK
}

// readAudit calls fn with each record since f.Since: from the Redis stream
// with audit.redis, else from audit.file.
func readAudit(f auditFlags, stderr io.Writer, fn func(audit.Record)) error {
	cfg, _, path, err := cli.LoadConfig(f.ConfigFlags, checkSchedules)
	if err != nil {
		return fmt.Errorf("config %s: %w", cli.DescribePath(path), err)
	}
	switch {
	case cfg.Audit.Redis:
		return withAuditStore(cfg, stderr, func(ctx context.Context, s *store.Audit) error {
			return s.ReadAudit(ctx, f.Since, func(e store.AuditEntry) error {
				r, err := audit.Decode(e.Record)
				if err != nil {
					return fmt.Errorf("stream entry %s: %w", e.ID, err)
				}
				fn(r)
				return nil
			})
		})
	case cfg.Audit.File != "":
		return readAuditFile(cfg.Audit.File, f.Since, fn)
	}
	return errors.New("no audit trail: set audit.redis: true (or audit.file) in the config")
}

// withAuditStore runs fn on the configured Redis's audit stream.
func withAuditStore(cfg *configs.Config, stderr io.Writer, fn func(context.Context, *store.Audit) error) error {
	return withStore(cfg, stderr, 5*time.Minute, func(ctx context.Context, db *store.DB, _ *slog.Logger) error {
		return fn(ctx, store.NewAudit(db))
	})
}

// withStore runs fn, for at most timeout, on the configured Redis, with a
// logger of warnings to stderr.
func withStore(cfg *configs.Config, stderr io.Writer, timeout time.Duration, fn func(context.Context, *store.DB, *slog.Logger) error) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	db, err := store.Open(ctx, storeOptions(cfg), log)
	if err != nil {
		return fmt.Errorf("open store: %w", err)
	}
	defer db.Close()
	return fn(ctx, db, log)
}

func storeOptions(cfg *configs.Config) store.Options {
	return store.Options{Addrs: cfg.Redis.Addrs(), MasterName: cfg.Redis.MasterName, Password: cfg.Redis.Password,
		DB: cfg.Redis.DB, Prefix: cfg.Redis.Prefix}
}

// readAuditFile reads audit.file's records since since.
func readAuditFile(path string, since time.Time, fn func(audit.Record)) error {
	fh, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("audit.file: %w", err)
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for line := 1; sc.Scan(); line++ {
		r, err := audit.Decode(sc.Bytes())
		if err != nil {
			return fmt.Errorf("%s:%d: %w", path, line, err)
		}
		if since.IsZero() || !r.Time.Before(since) {
			fn(r)
		}
	}
	return sc.Err()
}

// withHistoryRetention is Codex's -c overrides with history.persistence
// set as retention.codex_history says, unless agent.codex.config sets it.
func withHistoryRetention(config map[string]string, r configs.RetentionConfig) map[string]string {
	if _, set := config["history.persistence"]; set {
		return config
	}
	out := make(map[string]string, len(config)+1)
	for k, v := range config {
		out[k] = v
	}
	out["history.persistence"] = "none"
	if r.CodexHistory {
		out["history.persistence"] = "save-all"
	}
	return out
}
