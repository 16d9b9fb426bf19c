package bot

import (
	"context"
	"fmt"
	"strings"
)

// Efforts are the reasoning efforts /effort offers (configs.ChatEfforts).
var Efforts = []string{"low", "medium", "high"}

// Settings a conversation chooses for itself, as the store names them.
const (
	settingModel  = "model"
	settingEffort = "effort"
)

// ModelConfig is what /model and /effort need from the configuration.
type ModelConfig struct {
	// List returns the models the agent offers (Codex's model/list); nil
	// when the agent cannot list them, and /model then lists Allowed.
	List func(ctx context.Context) ([]string, error)
	// Allowed is agent.models: when set, the models /model offers and the
	// only ones it may pick.
	Allowed []string
	// Default names the model Codex runs with when none is chosen; nil
	// when unknown. A turn whose chosen model its project does not offer
	// names it: a thread keeps the model its last turn named.
	Default func(ctx context.Context) (string, error)
}

// modelCommand answers /model, /model <name>, /effort and /effort <level>.
func (in *intake) modelCommand(ctx context.Context, m Message, cmd string) (string, error) {
	args := strings.Fields(m.Text)[1:]
	conv := m.Conversation.Key()
	chosen, err := in.store.ChosenSettings(ctx, conv)
	if err != nil {
		return "", fmt.Errorf("%s in %s: %w", cmd, conv, err)
	}
	if cmd == "/effort" {
		return in.effort(ctx, m, chosen[settingEffort], args)
	}
	project, err := currentProject(ctx, in.cfg.Projects, in.store, m.Conversation, m.User)
	if err != nil {
		return "", fmt.Errorf("/model in %s: %w", conv, err)
	}
	offered, err := in.offeredModels(ctx, project)
	if err != nil {
		return "", fmt.Errorf("/model in %s: %w", conv, err)
	}
	if len(args) == 0 {
		return modelList(offered, chosen[settingModel], in.unsetSetting()), nil
	}
	name := args[0]
	if !contains(offered, name) {
		in.log.Info("refused: model not offered", "conv", conv, "user", m.User, "model", name)
		return fmt.Sprintf(textModelRefused, name, codeList(offered)), nil
	}
	if err := in.store.ChooseSetting(ctx, conv, settingModel, name); err != nil {
		return "", fmt.Errorf("/model in %s: %w", conv, err)
	}
	in.log.Info("model chosen", "conv", conv, "user", m.User, "model", name)
	in.auditSetting(ctx, m, settingModel, name)
	return fmt.Sprintf(textModelSet, name), nil
}

// offeredModels are the models /model may pick in project ("" for
// none): the project's own list, else agent.models when the admin set it
// (a custom provider's models need not be in Codex's catalogue), else
// what the agent lists.
func (in *intake) offeredModels(ctx context.Context, project string) ([]string, error) {
	if fixed := allowedModels(in.cfg, project); len(fixed) > 0 || in.cfg.Models.List == nil {
		return fixed, nil
	}
	return in.cfg.Models.List(ctx)
}

func (in *intake) effort(ctx context.Context, m Message, current string, args []string) (string, error) {
	conv := m.Conversation.Key()
	if len(args) == 0 {
		if current == "" {
			current = in.unsetSetting()
		}
		return fmt.Sprintf(textEffortShow, current, codeList(Efforts)), nil
	}
	level := strings.ToLower(args[0])
	if !contains(Efforts, level) {
		return fmt.Sprintf(textEffortRefused, args[0], codeList(Efforts)), nil
	}
	if err := in.store.ChooseSetting(ctx, conv, settingEffort, level); err != nil {
		return "", fmt.Errorf("/effort in %s: %w", conv, err)
	}
	in.log.Info("effort chosen", "conv", conv, "effort", level)
	in.auditSetting(ctx, m, settingEffort, level)
	return fmt.Sprintf(textEffortSet, level), nil
}

func modelList(offered []string, current, unset string) string {
	if len(offered) == 0 {
		return textNoModels
	}
	var b strings.Builder
	writeMarkedList(&b, "**Models** (▶ this conversation's)", offered, current)
	switch {
	case current == "":
		b.WriteString("\nThis conversation uses " + unset + ".\n")
	case !contains(offered, current):
		// Chosen in another project, or before the admin's list changed.
		b.WriteString("\nThis conversation's `" + current + "` is not offered here: it uses " + unset + ".\n")
	}
	b.WriteString("\n" + textModelHint)
	return b.String()
}

// writeMarkedList writes head and one line per name, the current one
// marked: what /model and /project list.
func writeMarkedList(b *strings.Builder, head string, names []string, current string) {
	b.WriteString(head + "\n")
	for _, name := range names {
		mark := "- "
		if name == current {
			mark = "- ▶ "
		}
		b.WriteString(mark + "`" + name + "`\n")
	}
}

func codeList(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return "`" + strings.Join(names, "`, `") + "`"
}

// unsetSetting names what a model or effort the conversation did not
// choose falls back to: a project's is named only where projects are
// configured.
func (in *intake) unsetSetting() string {
	if in.cfg.Projects == nil {
		return textCodexDefault
	}
	return "the project's default, else Codex's"
}

const textCodexDefault = "Codex's default"

// settingsStatus are /status's lines for the conversation's model and
// effort: its own choice, else whose default applies. A project's default
// is named only where projects are configured.
// A chosen model the conversation's project does not offer is shown so,
// with what its turns use instead.
func settingsStatus(chosen map[string]string, unset string, modelOffered bool) string {
	over := "(this conversation's)"
	if unset != textCodexDefault {
		over = "(this conversation's, over the project's)"
	}
	line := func(what, v, over string) string {
		if v == "" {
			return "- " + what + ": " + unset + "\n"
		}
		return "- " + what + ": `" + v + "` " + over + "\n"
	}
	modelOver := over
	if !modelOffered {
		modelOver = "(this conversation's, not offered here: its turns use " + unset + ")"
	}
	return "\n" + strings.TrimSuffix(line("model", chosen[settingModel], modelOver)+line("effort", chosen[settingEffort], over), "\n")
}

const (
	textModelSet      = "Model set to `%s` for this conversation: its next turn uses it."
	textModelRefused  = "`%s` is not offered here; pick one of %s."
	textModelHint     = "`/model <name>` picks one for this conversation."
	textNoModels      = "No models are offered here."
	textEffortSet     = "Reasoning effort set to `%s` for this conversation: its next turn uses it."
	textEffortShow    = "Reasoning effort: %s. `/effort <level>` picks one of %s."
	textEffortRefused = "`%s` is not an effort here; pick one of %s."
)
