package bot

import (
	"context"
	"strings"
)

// chatCommand is one slash command: the words it answers, its line on
// /help, and what it does. None of them runs the agent as a prompt.
type chatCommand struct {
	// names are the words it answers, lower case with the slash.
	names []string
	// help is its one line on /help: what comes after "- ".
	help string
	// anyChat marks a command an approver may send from any chat with the
	// bot, allowed there or not (deciding and listing approvals).
	anyChat bool
	// shown reports whether /help lists it here; nil lists it always.
	shown func(in *intake) bool
	// run answers it; word is which of names was sent.
	run func(ctx context.Context, in *intake, ch Channel, m Message, word string) (string, error)
}

// chatCommands is every command, in /help's order. A function, not a
// variable: /help's handler reads the table, which would make a variable's
// initialisation refer to itself.
func chatCommands() []chatCommand {
	return []chatCommand{
		{names: []string{"/new"}, help: "`/new` — start a fresh session with the next message", run: runNew},
		{names: []string{"/stop"}, help: "`/stop` — stop the running turn", run: runStop},
		{names: []string{"/status"}, help: "`/status` — what is running and waiting here", run: runStatus},
		{names: []string{"/model"}, help: "`/model` [`<name>`] — the models offered, or pick one for this conversation", run: runModel},
		{names: []string{"/effort"}, help: "`/effort` [`low`|`medium`|`high`] — this conversation's reasoning effort, or pick one", run: runModel},
		{names: []string{"/sessions"}, help: "`/sessions` — this conversation's recent sessions, numbered", run: runSessions},
		{names: []string{"/resume"}, help: "`/resume <n>` — continue session n of `/sessions`", run: runResume},
		{names: []string{"/fork"}, help: "`/fork <n>` — branch session n into a new session and continue there, leaving it as it was", run: runFork},
		{names: []string{"/name"}, help: "`/name <text>` — name the current session", run: runName},
		{names: []string{"/mode"}, help: "`/mode` [`read-only`|`workspace`|`full`] — the permission modes, or switch this conversation's (`full`: approvers only)", run: runMode},
		{names: []string{"/usage"}, help: "`/usage` — this session's tokens, the account's rate limits, and what is left of your limits", run: runUsage},
		{names: []string{"/project"}, help: "`/project` — the projects open here; `/project <name>` — work in another (a fresh session)", shown: withProjects, run: runProject},
		{names: []string{"/diff"}, help: "`/diff` — what this conversation changed against the project's ref", shown: withProjects, run: runProject},
		{names: []string{"/reset"}, help: "`/reset` — discard those changes (asks for `/reset yes`)", shown: withProjects, run: runProject},
		{names: []string{"/approve", "/deny"}, anyChat: true, help: "`/approve` [`always`] [`N`] — let the agent do what it asks (`always`, an approver's: also every later command that starts the same way, in this conversation until /new); `/deny` [`N`] — refuse", run: runApproval},
		{names: []string{"/pending"}, anyChat: true, help: "`/pending` — the requests waiting for your decision, in any conversation", run: runPending},
		{names: []string{"/review"}, help: "`/review` [`<what to look at>`] — Codex reviews this conversation's uncommitted changes (or what you name), as the next turn", shown: agentOffers(actionReview), run: runControl},
		{names: []string{"/compact"}, help: "`/compact` — compact this session's history into a summary, as the next turn", shown: agentOffers(actionCompact), run: runControl},
		{names: []string{"/undo"}, help: "`/undo` — undo the last turn: Codex forgets it and the files it changed are put back", shown: agentOffers(actionUndo), run: runControl},
		{names: []string{"/steer"}, help: "`/steer <text>` — add the text to the running turn (with none running, it runs as a message)", shown: agentOffers(actionSteer), run: runControl},
		{names: []string{"/more"}, help: "`/more` — the next part of an answer too long for one reply", run: runMore},
		{names: []string{"/file"}, help: "`/file <name>` — send a file of this conversation's workspace (where the channel can send files)", run: runFile},
		{names: []string{"/schedule"}, help: "`/schedule add \"<cron>\" <prompt>`, `/schedule list`, `/schedule rm|pause|resume <id>` — turns that run on their own", run: runSchedule},
		{names: []string{"/help"}, help: "`/help` — this list", run: runHelp},
	}
}

// lookupCommand finds the command a message's first word names,
// case-insensitive. Unknown slash words are not commands; they go to the
// agent, which may know them.
func lookupCommand(text string) (chatCommand, string, bool) {
	if !strings.HasPrefix(text, "/") {
		return chatCommand{}, "", false
	}
	word, _, _ := strings.Cut(text, " ")
	word = strings.ToLower(strings.TrimSpace(word))
	for _, c := range chatCommands() {
		for _, n := range c.names {
			if n == word {
				return c, word, true
			}
		}
	}
	return chatCommand{}, "", false
}

func withProjects(in *intake) bool { return in.cfg.Projects != nil }

// help is /help's answer: one line for each command shown here.
func (in *intake) help() string {
	var b strings.Builder
	b.WriteString("**Commands**\n")
	for _, c := range chatCommands() {
		if c.shown == nil || c.shown(in) {
			b.WriteString("- " + c.help + "\n")
		}
	}
	b.WriteString("\n" + textHelpTail)
	return b.String()
}
