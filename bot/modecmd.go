package bot

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/wecodex/wecodex/acpbridge"
)

// settingMode is the store's name for a conversation's permission mode
// (/mode), kept beside /model's and /effort's choices.
const settingMode = "mode"

// modeLines say what each mode lets the agent do, in /mode's list.
var modeLines = map[acpbridge.Mode]string{
	acpbridge.ModeReadOnly:  "the agent may look, not change: its commands cannot write the workspace, and no request to leave the sandbox is granted",
	acpbridge.ModeWorkspace: "the default: its commands write the workspace; leaving the sandbox needs an approval",
	acpbridge.ModeFull:      "an approver's choice: requests to leave the sandbox are granted without asking, until `/new`",
}

func runMode(ctx context.Context, in *intake, _ Channel, m Message, _ string) (string, error) {
	return in.mode(ctx, m)
}

// mode answers /mode and /mode <name>.
func (in *intake) mode(ctx context.Context, m Message) (string, error) {
	conv := m.Conversation.Key()
	chosen, err := in.store.ChosenSettings(ctx, conv)
	if err != nil {
		return "", fmt.Errorf("/mode in %s: %w", conv, err)
	}
	current := chosenMode(chosen)
	args := strings.Fields(m.Text)[1:]
	if len(args) == 0 {
		return modeList(current, in.cfg.Access.IsApprover(m.User)), nil
	}
	name, err := acpbridge.ParseMode(strings.ToLower(args[0]))
	switch {
	case err != nil:
		return fmt.Sprintf(textModeUnknown, args[0], codeList(modeNames())), nil
	case name == acpbridge.ModeFull && !in.cfg.Access.IsApprover(m.User):
		in.log.Info("refused: full mode by a non-approver", "conv", conv, "user", m.User)
		in.auditRefusedDetail(ctx, m, RefusedNotApprover, "mode full")
		return textModeFullRefused, nil
	case name == current:
		return fmt.Sprintf(textModeAlready, name), nil
	}
	value := string(name)
	if name == acpbridge.DefaultMode {
		value = "" // the default, so a changed default reaches it
	}
	if err := in.store.ChooseSetting(ctx, conv, settingMode, value); err != nil {
		return "", fmt.Errorf("/mode in %s: %w", conv, err)
	}
	in.log.Info("mode chosen", "conv", conv, "user", m.User, "mode", name)
	in.auditSetting(ctx, m, settingMode, string(name))
	return fmt.Sprintf(textModeSet, name, modeLines[name]), nil
}

// chosenMode is the mode a conversation chose, else the default.
func chosenMode(chosen map[string]string) acpbridge.Mode {
	if m, err := acpbridge.ParseMode(chosen[settingMode]); err == nil {
		return m
	}
	return acpbridge.DefaultMode
}

func modeNames() []string {
	var out []string
	for _, m := range acpbridge.Modes() {
		out = append(out, string(m))
	}
	return out
}

func modeList(current acpbridge.Mode, approver bool) string {
	var b strings.Builder
	b.WriteString("**Modes** (▶ this conversation's)\n")
	for _, name := range acpbridge.Modes() {
		mark := "- "
		if name == current {
			mark = "- ▶ "
		}
		line := modeLines[name]
		if name == acpbridge.ModeFull && !approver {
			line += " (you are not an approver, so you cannot pick it)"
		}
		b.WriteString(mark + "`" + string(name) + "` — " + line + "\n")
	}
	b.WriteString("\n" + textModeHint)
	return b.String()
}

// dropFullMode gives a conversation in full mode the default back when its
// session ends (/new): what an approver granted was for that session.
func (in *intake) dropFullMode(ctx context.Context, m Message) error {
	conv := m.Conversation.Key()
	chosen, err := in.store.ChosenSettings(ctx, conv)
	if err != nil || chosenMode(chosen) != acpbridge.ModeFull {
		return err
	}
	if err := in.store.ChooseSetting(ctx, conv, settingMode, ""); err != nil {
		return err
	}
	in.auditSetting(ctx, m, settingMode, string(acpbridge.DefaultMode))
	return nil
}

// turnMode is the mode q's turn runs in: a schedule's or trigger's own,
// else the conversation's choice, else the default.
func (r *turnRunner) turnMode(ctx context.Context, log *slog.Logger, q queued) acpbridge.Mode {
	if q.Mode != "" {
		return q.Mode
	}
	chosen, err := r.store.ChosenSettings(ctx, q.Conversation)
	if err != nil {
		// Fail safe: a mode that cannot be read is not full.
		log.Warn("read the conversation's mode; the turn runs read-only", "err", err)
		return acpbridge.ModeReadOnly
	}
	return chosenMode(chosen)
}

// modeSink is the sink of a turn in mode: read-only denies and full grants
// every request to leave the sandbox, saying so on the card; workspace
// leaves them to agent.approval (ask).
func (r *turnRunner) modeSink(ctx context.Context, mode acpbridge.Mode, card cardSink, q *queued, ch Channel) turnSink {
	switch mode {
	case acpbridge.ModeReadOnly:
		return policy(acpbridge.ApprovalDeny).sinkFor(card, q, ch)
	case acpbridge.ModeFull:
		return policy(acpbridge.ApprovalAllow).sinkFor(card, q, ch)
	}
	return r.sinkFor(ctx, card, q, ch)
}

// modeStatus is /status's mode line.
func modeStatus(mode acpbridge.Mode) string {
	if mode == acpbridge.DefaultMode {
		return "\n- mode: `" + string(mode) + "` (the default)"
	}
	return "\n- mode: `" + string(mode) + "` (this conversation's)"
}

// modeHeader is the card's header line for mode: none for the default.
func modeHeader(mode acpbridge.Mode) string {
	switch mode {
	case acpbridge.ModeReadOnly:
		return "🔒 Mode: read-only — the agent may look, not change"
	case acpbridge.ModeFull:
		return "⚠️ Mode: full — requests to leave the sandbox are granted without asking"
	}
	return ""
}

const (
	textModeSet         = "Mode set to `%s` for this conversation: %s. Its next turn runs in it."
	textModeAlready     = "This conversation is in `%s` mode already."
	textModeUnknown     = "`%s` is not a mode; pick one of %s."
	textModeFullRefused = "⛔ Only an approver may switch this conversation to `full` mode: it grants the agent's requests to leave the sandbox without asking. The mode is unchanged."
	textModeHint        = "`/mode <name>` switches this conversation's mode."
)
