package bot

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge"
)

// What the card and the commands say about approvals.
const (
	textApprovalStoreDown = "the approval could not be recorded; try again"
	textNothingWaiting    = "Nothing is waiting for approval in this conversation."
	textApprovalUsage     = "Send `/approve`, `/approve always` or `/deny`, optionally with the request's number (`/approve 3`)."
	// shortWhatRunes bounds what the status line shows of a request; the
	// whole of it is in the progress section.
	shortWhatRunes = 100
)

// textApprovalHint is how to decide on a channel without buttons.
func textApprovalHint(id int64) string {
	return fmt.Sprintf("send /approve, /approve always or /deny (#%d)", id)
}

// textApprovalStatus is the card's status detail while ask waits.
func textApprovalStatus(ask ApprovalAsk, hint string) string {
	return fmt.Sprintf("#%d %s — %s", ask.ID, ask.What, hint)
}

// textApproverHint is how to decide when the requester cannot: who does,
// and the commands that work from any chat with the bot.
func textApproverHint(ask ApprovalAsk) string {
	return fmt.Sprintf("%s decides with /approve %d or /deny %d, from any chat with the bot", ask.Deciders, ask.ID, ask.ID)
}

// textApprovalAsked is the progress line with everything that is asked.
func textApprovalAsked(ask ApprovalAsk, full string) string {
	return fmt.Sprintf("Approval #%d asked of %s: %s", ask.ID, ask.Deciders, full)
}

func textNotYours(id int64, only string) string {
	return fmt.Sprintf("Only %s may decide #%d.", only, id)
}

func textAlwaysNotYours(id int64, only string) string {
	return fmt.Sprintf("Only %s may approve #%d always; /approve %d approves it once.", only, id, id)
}

const (
	textNothingPending = "Nothing is waiting for your decision."
	textPendingHead    = "Waiting for your decision:"
)

// textPendingLine is one request /pending lists, with the commands that
// decide it.
func textPendingLine(id int64, conv, requester, what string) string {
	return fmt.Sprintf("#%d from %s in %s: %s — /approve %d or /deny %d", id, requester, conv, what, id, id)
}

// orList joins names as "a", "a or b", "a, b or c".
func orList(names []string) string {
	if len(names) <= 1 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// asked says who a request of requester is asked of: "an admin",
// "dave or erin", "alice (or an admin)".
func (a Access) asked(requester string) string {
	named := "an admin"
	if !a.approversAreAdmins() {
		named = orList(a.approvers())
	}
	if a.requesterDecides() {
		return requester + " (or " + named + ")"
	}
	return named
}

// forCard says who a request of requester is for on a button card:
// "an admin", "dave or erin", "alice or an admin".
func (a Access) forCard(requester string) string {
	named := "an admin"
	if !a.approversAreAdmins() {
		named = orList(a.approvers())
	}
	if a.requesterDecides() {
		return requester + " or " + named
	}
	return named
}

// only says who may decide a request of requester once, for a refusal:
// "an admin", "dave or erin", "alice (who asked) or an admin".
func (a Access) only(requester string, always bool) string {
	named := "an admin"
	if !a.approversAreAdmins() {
		named = orList(a.approvers())
	}
	if a.requesterDecides() && !always {
		return requester + " (who asked) or " + named
	}
	return named
}

// approversAreAdmins reports whether access.approvers names nobody, so the
// admins decide.
func (a Access) approversAreAdmins() bool {
	for _, u := range a.Approvers {
		if u != ApproverRequester {
			return false
		}
	}
	return true
}

func textNotWaiting(id int64, waiting []int64) string {
	ids := make([]string, len(waiting))
	for i, w := range waiting {
		ids[i] = fmt.Sprintf("#%d", w)
	}
	return fmt.Sprintf("#%d is not waiting for approval. Waiting: %s.", id, strings.Join(ids, ", "))
}

func textAlreadyDecided(id int64, d ApprovalDecision) string {
	return fmt.Sprintf("#%d was already decided: %s.", id, verdictText(d))
}

// textDecided answers the decider; always is what an /approve always
// lets run unasked from now on (approvalRequest.Always).
func textDecided(id int64, d ApprovalDecision, what, always string) string {
	text := fmt.Sprintf("OK — #%d %s: %s", id, verdictText(d), what)
	if d.Verdict == VerdictAlways && always != "" {
		text += textGrantScope(always)
	}
	return text
}

// textGrantScope says what an /approve always granted, and where.
func textGrantScope(what string) string {
	return " — " + what + " now runs unasked in this conversation, until its session ends (/new)"
}

// textGrantedBefore is the progress line of a request an earlier
// /approve always answered.
func textGrantedBefore(short string, g grant) string {
	return fmt.Sprintf("Approved unasked: %s — #%d's /approve always by %s covers %s here", short, g.ID, g.By, g.what())
}

// verdictText says how a request was decided: "approved by alice",
// "declined: timed out", …
func verdictText(d ApprovalDecision) string {
	switch d.Verdict {
	case VerdictApprove:
		return "approved by " + d.By
	case VerdictAlways:
		return "approved always by " + d.By
	case VerdictDeny:
		return "declined by " + d.By
	case VerdictTimeout:
		return "declined: no one decided in time"
	}
	return "cancelled: the turn ended first"
}

// decisionNotice is the progress line that says how a request ended;
// granted is what its /approve always lets run unasked from now on ("":
// nothing, and the line says it was approved once).
func decisionNotice(ask ApprovalAsk, d ApprovalDecision, timeout time.Duration, granted string) acpbridge.Notice {
	level := acpbridge.NoticeWarning
	text := fmt.Sprintf("#%d %s: %s", ask.ID, verdictText(d), ask.What)
	switch d.Verdict {
	case VerdictAlways:
		level = acpbridge.NoticeInfo
		if granted == "" {
			text = fmt.Sprintf("#%d approved once by %s (its /approve always could not be kept): %s", ask.ID, d.By, ask.What)
		} else {
			text += textGrantScope(granted)
		}
	case VerdictApprove:
		level = acpbridge.NoticeInfo
	case VerdictTimeout:
		text = fmt.Sprintf("#%d timed out after %s (agent.approval_timeout) and was declined: %s", ask.ID, timeout, ask.What)
	}
	return acpbridge.Notice{Level: level, Text: text}
}

// describeRequest is what a permission request asks, short (for the status
// line) and full (for the progress section): the command and its working
// directory, or the files a patch touches.
func describeRequest(req acp.RequestPermissionRequest) (short, full string) {
	tc := req.ToolCall
	title := string(tc.ToolCallId)
	if tc.Title != nil && *tc.Title != "" {
		title = *tc.Title
	}
	raw, _ := tc.RawInput.(map[string]any)
	if tc.Kind != nil && *tc.Kind == acp.ToolKindEdit && len(tc.Locations) > 0 {
		var files []string
		for _, l := range tc.Locations {
			files = append(files, filepath.Base(l.Path))
		}
		short = "edit " + strings.Join(files, ", ")
		paths := make([]string, 0, len(tc.Locations))
		for _, l := range tc.Locations {
			paths = append(paths, l.Path)
		}
		// One line: the card folds every notice onto one.
		full = title + ": " + strings.Join(paths, ", ")
	} else {
		short, full = "`"+title+"`", "`"+title+"`"
		if cwd, _ := raw["cwd"].(string); cwd != "" {
			short += " in " + cwd
			full += " in " + cwd
		}
	}
	if reason, _ := raw["reason"].(string); reason != "" {
		full += " — " + reason
	}
	return truncate(short, shortWhatRunes), full
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// envAssignment is a leading NAME=value word, which may carry a secret.
var envAssignment = regexp.MustCompile(`(^|\s|'|")[A-Za-z_][A-Za-z0-9_]*=("[^"]*"|'[^']*'|\S*)`)

// withoutEnv is a command as a log line may show it: environment
// assignments (FOO=secret cmd, env FOO=secret cmd) keep their names only.
func withoutEnv(cmd string) string {
	return envAssignment.ReplaceAllStringFunc(cmd, func(m string) string {
		name, _, _ := strings.Cut(m, "=")
		return name + "=…"
	})
}
