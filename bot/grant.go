package bot

import (
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge"
)

// grant is what an approver's /approve always lets the agent do again
// without asking, in one conversation's agent session: the commands that
// start with Prefix, or (when the command has no prefix that can be
// granted) Exact again, or edits of Files. It is recorded in Redis with the
// conversation, so whichever replica runs the next turn honours it, and
// never reaches another conversation. wecodex decides these itself and
// answers Codex "accept" once each time: Codex's own acceptForSession lives
// in one app-server process, and its execpolicy amendments are written to
// CODEX_HOME for every conversation.
type grant struct {
	Session string   `json:"session"`
	Prefix  []string `json:"prefix,omitempty"`
	Exact   string   `json:"exact,omitempty"`
	Files   []string `json:"files,omitempty"`
	// ID and By are the request whose /approve always granted it, and who.
	ID int64  `json:"id"`
	By string `json:"by"`
}

// maxSubcommandWords is how many plain words after the program a prefix
// keeps: `git push origin`, `docker compose up`, `npm run build`.
const maxSubcommandWords = 2

var (
	// plainArg is a shell word with nothing the shell would read: no
	// quote, expansion ($ ` ~ * ? [), redirection, pipe, list, group,
	// comment or escape. A command is granted by prefix only when every
	// word of it is one, so `git status; rm -rf ~` never matches `git
	// status`.
	plainArg = regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]+$`)
	// subcommandWord is a word that names what the program does (`push`,
	// `compose`), not an option, a path or a value.
	subcommandWord = regexp.MustCompile(`^[a-z][a-z0-9_-]*$`)
	// shellWrapped is how Codex shows the command it runs: the shell, -c
	// or -lc, and the script as one single-quoted word.
	shellWrapped = regexp.MustCompile(`^(?:/usr)?(?:/bin/)?(?:bash|sh|zsh|dash) -l?c (?:'([^']*)'|([^\s']+))$`)
)

// runsAnother names programs that run a command given as their arguments:
// a prefix of one of them (`env`, `sudo`, `xargs`) would grant every
// command, so they are granted only exactly.
var runsAnother = []string{
	"bash", "builtin", "busybox", "chroot", "command", "dash", "doas", "env", "eval", "exec", "fish", "flock",
	"ionice", "ksh", "ltrace", "nice", "nohup", "nsenter", "parallel", "runuser", "script", "setsid", "sh", "ssh",
	"stdbuf", "strace", "su", "sudo", "time", "timeout", "unshare", "watch", "xargs", "zsh",
}

// commandWords are the words of the command a Codex request runs: the
// script inside Codex's `bash -c '…'`, split at spaces. ok is false when
// any word is not plain (see plainArg): such a command has no prefix.
func commandWords(command string) (words []string, ok bool) {
	script := strings.TrimSpace(command)
	if m := shellWrapped.FindStringSubmatch(script); m != nil {
		script = m[1] + m[2]
	}
	if strings.ContainsAny(script, "\n\r\t\v\f") {
		return nil, false // a newline ends a command as ; does
	}
	words = strings.Fields(script)
	if len(words) == 0 {
		return nil, false
	}
	for _, w := range words {
		if !plainArg.MatchString(w) {
			return nil, false
		}
	}
	return words, true
}

// commandPrefix is the prefix /approve always grants for command: the
// program and up to maxSubcommandWords plain subcommand words after it.
// ok is false when there is none: a word the shell would read (see
// plainArg), an environment assignment in the program's place, or a
// program that runs another (runsAnother).
func commandPrefix(command string) (prefix []string, ok bool) {
	words, ok := commandWords(command)
	if !ok || strings.Contains(words[0], "=") || slices.Contains(runsAnother, filepath.Base(words[0])) {
		return nil, false
	}
	prefix = words[:1]
	for _, w := range words[1:] {
		if len(prefix) == 1+maxSubcommandWords || !subcommandWord.MatchString(w) {
			break
		}
		prefix = append(prefix, w)
	}
	return slices.Clip(prefix), true
}

// requestCommand is the command a permission request asks to run ("" for
// a patch): what the Codex bridge puts in rawInput.command, else the tool
// call's title.
func requestCommand(req acp.RequestPermissionRequest) string {
	tc := req.ToolCall
	if tc.Kind != nil && *tc.Kind == acp.ToolKindEdit {
		return ""
	}
	if raw, _ := tc.RawInput.(map[string]any); raw != nil {
		if c, _ := raw["command"].(string); c != "" {
			return c
		}
	}
	if tc.Title != nil {
		return *tc.Title
	}
	return ""
}

// requestFiles are the files a patch request touches.
func requestFiles(req acp.RequestPermissionRequest) []string {
	tc := req.ToolCall
	if tc.Kind == nil || *tc.Kind != acp.ToolKindEdit || len(tc.Locations) == 0 {
		return nil
	}
	files := make([]string, len(tc.Locations))
	for i, l := range tc.Locations {
		files[i] = l.Path
	}
	return files
}

// grantFor is what /approve always of req grants; ok is false when req
// names nothing that could be asked again (no command, no file).
func grantFor(req acp.RequestPermissionRequest) (grant, bool) {
	g := grant{Session: string(req.SessionId)}
	if files := requestFiles(req); files != nil {
		g.Files = files
		return g, true
	}
	cmd := requestCommand(req)
	if cmd == "" {
		return g, false
	}
	if p, ok := commandPrefix(cmd); ok {
		g.Prefix = p
	} else {
		g.Exact = cmd
	}
	return g, true
}

// covers reports whether g lets req run without asking: the same session,
// and a command whose words are all plain and start with g's prefix, or
// exactly g's command, or a patch touching only g's files.
func (g grant) covers(req acp.RequestPermissionRequest) bool {
	if g.Session == "" || g.Session != string(req.SessionId) {
		return false
	}
	if files := requestFiles(req); files != nil {
		if g.Files == nil {
			return false
		}
		for _, f := range files {
			if !slices.Contains(g.Files, f) {
				return false
			}
		}
		return true
	}
	cmd := requestCommand(req)
	switch {
	case cmd == "":
		return false
	case g.Exact != "":
		return cmd == g.Exact
	case len(g.Prefix) > 0:
		words, ok := commandWords(cmd)
		return ok && len(words) >= len(g.Prefix) && slices.Equal(words[:len(g.Prefix)], g.Prefix)
	}
	return false
}

// what says what g lets run, for the card: "every `git push …` command",
// "`make deploy` again", "edits of a.txt, b.txt".
func (g grant) what() string {
	switch {
	case len(g.Files) > 0:
		names := make([]string, len(g.Files))
		for i, f := range g.Files {
			names[i] = filepath.Base(f)
		}
		return "edits of " + strings.Join(names, ", ")
	case len(g.Prefix) > 0:
		return "every `" + strings.Join(g.Prefix, " ") + " …` command"
	}
	return "`" + g.Exact + "` again"
}

// grantedBefore answers req at once when an earlier /approve always in the
// turn's conversation covers it, and says so on the card and in the log.
// A grant that cannot be read asks as usual.
func (a *approvals) grantedBefore(ctx context.Context, s *askingSink, req acp.RequestPermissionRequest, short string) bool {
	conv := s.turn.Conversation
	recs, err := a.store.Grants(ctx, conv)
	if err != nil {
		a.log.Warn("read the /approve always grants; asking instead", "conv", conv, "err", err)
		return false
	}
	for _, b := range recs {
		var g grant
		if json.Unmarshal(b, &g) != nil || !g.covers(req) {
			continue
		}
		a.log.Info("approval granted by an earlier /approve always", "conv", conv, "approval", g.ID, "by", g.By,
			"requester", s.turn.User, "what", withoutEnv(short))
		s.Notice(acpbridge.Notice{Level: acpbridge.NoticeInfo, Text: textGrantedBefore(short, g)})
		return true
	}
	return false
}

// recordGrant keeps g for the conversation's later requests and returns
// what it grants, "" when it could not be recorded (the request itself is
// approved all the same, once).
func (a *approvals) recordGrant(ctx context.Context, conv string, g grant) string {
	body, _ := json.Marshal(g)
	gctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := a.store.AddGrant(gctx, conv, body); err != nil {
		a.log.Error("record an /approve always; it approves its own request only", "conv", conv, "approval", g.ID, "err", err)
		return ""
	}
	return g.what()
}
