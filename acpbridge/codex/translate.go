package codex

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge"
)

// outputTail bounds the command output a streaming tool_call_update carries.
// ACP tool content replaces the previous content, so sending the whole output
// on every delta would cost quadratic time; a bounded tail keeps each update
// O(1), and the completing update carries Codex's aggregated output whenever
// the client lacks any of it (missingOutput).
const outputTail = 2048

// phaseTimeout bounds one PhaseStore call made from the read loop. Writes
// return at once (PhaseCache writes behind); only a lookup miss, an item
// whose item/started this process never saw, reaches Redis, and it is kept
// short because every conversation's stream waits behind it.
const phaseTimeout = 250 * time.Millisecond

// translator turns one Codex thread's notifications into ACP updates. It is
// owned by the connection's read loop: no locking, and its sink calls happen
// in the order Codex wrote the lines.
type translator struct {
	ctx      context.Context // the agent's lifetime, for PhaseStore calls
	threadID string
	phases   acpbridge.PhaseStore
	log      *slog.Logger

	// The item the last agent message delta belonged to, so a run of deltas
	// of one message reuses its id string and phase: no allocation and no
	// store lookup per delta.
	lastItem     string
	lastPhase    acpbridge.Phase
	lastStreamed bool
	streamed     map[string]struct{} // agent messages that got at least one delta

	outputs map[string]*commandOutput     // running commands, by item id
	changes map[string][]fileUpdateChange // pending file changes, for approvals

	// reviewing is set while a review runs (enteredReviewMode until
	// exitedReviewMode); hidden are the reviewer's raw messages then
	// (control.go).
	reviewing bool
	hidden    map[string]struct{}
}

type commandOutput struct {
	tail     []byte // at most 2*outputTail bytes, trimmed to outputTail on emit
	streamed int    // output bytes that arrived as outputDelta
}

func newTranslator(ctx context.Context, threadID string, phases acpbridge.PhaseStore, log *slog.Logger) *translator {
	return &translator{
		ctx: ctx, threadID: threadID, phases: phases, log: log,
		streamed: make(map[string]struct{}),
		outputs:  make(map[string]*commandOutput),
		changes:  make(map[string][]fileUpdateChange),
	}
}

// internItem returns the item id as a string, reusing the last one when the
// bytes match so a stream of deltas allocates no id strings.
func (t *translator) internItem(raw []byte) string {
	if string(raw) == t.lastItem {
		return t.lastItem
	}
	return string(raw)
}

// agentDelta handles item/agentMessage/delta: the phase remembered at
// item/started decides the chunk kind (the seed bug's fix).
func (t *translator) agentDelta(itemRaw, deltaRaw []byte, sink acpbridge.Sink) {
	if len(t.hidden) > 0 && t.isHidden(itemRaw) {
		return
	}
	id := t.internItem(itemRaw)
	if id != t.lastItem {
		t.lastItem, t.lastPhase, t.lastStreamed = id, t.lookupPhase(id), false
	}
	if !t.lastStreamed {
		t.lastStreamed = true
		t.streamed[id] = struct{}{}
	}
	sink.Update(acpbridge.AgentText(t.lastPhase, id, stringValue(deltaRaw)))
}

// lookupPhase asks the phase store (cache first, shared store on a miss) for
// an item whose item/started this translator did not see last.
func (t *translator) lookupPhase(itemID string) acpbridge.Phase {
	ctx, cancel := context.WithTimeout(t.ctx, phaseTimeout)
	defer cancel()
	p, ok, err := t.phases.Phase(ctx, t.threadID, itemID)
	if err != nil {
		// Answer text is the safe default: it can never hide the answer.
		t.log.Warn("look up message phase", "thread", t.threadID, "item", itemID, "err", err)
	} else if !ok {
		t.log.Debug("no phase recorded for message; treating it as answer text", "thread", t.threadID, "item", itemID)
	}
	return acpbridge.Phase(p)
}

func (t *translator) reasoningDelta(itemRaw, deltaRaw []byte, sink acpbridge.Sink) {
	sink.Update(thought(t.internItem(itemRaw), stringValue(deltaRaw)))
}

func (t *translator) reasoningPart(params []byte, sink acpbridge.Sink) {
	var n reasoningPartNotification
	if err := json.Unmarshal(params, &n); err != nil {
		t.log.Warn("decode item/reasoning/summaryPartAdded", "err", err)
		return
	}
	if n.SummaryIndex > 0 {
		// Keep summary parts from running into each other.
		sink.Update(thought(n.ItemID, "\n\n"))
	}
}

func (t *translator) commandOutputDelta(itemRaw, deltaRaw []byte, sink acpbridge.Sink) {
	id := t.internItem(itemRaw)
	out := t.outputs[id]
	if out == nil {
		out = &commandOutput{}
		t.outputs[id] = out
	}
	raw, escaped, ok := rawString(deltaRaw)
	if !ok {
		return
	}
	n := len(out.tail)
	if escaped {
		out.tail = append(out.tail, stringValue(deltaRaw)...)
	} else {
		out.tail = append(out.tail, raw...)
	}
	out.streamed += len(out.tail) - n
	if len(out.tail) > 2*outputTail {
		out.tail = append(out.tail[:0], out.tail[len(out.tail)-outputTail:]...)
	}
	sink.Update(acp.SessionUpdate{ToolCallUpdate: &acp.SessionToolCallUpdate{
		SessionUpdate: "tool_call_update",
		ToolCallId:    acp.ToolCallId(id),
		Status:        acp.Ptr(acp.ToolCallStatusInProgress),
		Content:       []acp.ToolCallContent{acp.ToolContent(acp.TextBlock(tailText(out.tail, outputTail)))},
	}})
}

// missingOutput is the content of a command's completing tool_call_update:
// nil when the client already holds the whole output, else Codex's
// aggregated output.
//
// ACP tool call content replaces what the client holds, so the streamed
// updates each carry the output so far (see outputTail). Codex does not
// always stream it: 0.171.0 sends no outputDelta for a command that ends
// within a millisecond, and none for what a command printed before Codex
// first polled it, so the streamed bytes may be nothing, a prefix of
// aggregatedOutput, or not a prefix at all ("two\n" of "one\ntwo\n").
// Whatever is missing, the aggregated output replaces the streamed text
// rather than being added to it: the client ends with Codex's output exactly
// once, never the streamed part followed by the whole. When everything
// streamed and the last update carried all of it, the completion sends no
// content (absent content leaves the client's as it is), so the output is
// not sent twice.
func missingOutput(out *commandOutput, aggregated *string) []acp.ToolCallContent {
	if aggregated == nil || *aggregated == "" {
		return nil // nothing better than what streamed, if anything did
	}
	if out != nil && out.streamed <= outputTail && string(out.tail) == *aggregated {
		return nil
	}
	return []acp.ToolCallContent{acp.ToolContent(acp.TextBlock(*aggregated))}
}

// tailText returns at most max bytes from the end of b, starting at a line
// (or at least a UTF-8) boundary.
func tailText(b []byte, max int) string {
	if len(b) <= max {
		return string(b)
	}
	b = b[len(b)-max:]
	if i := strings.IndexByte(string(b), '\n'); i >= 0 && i < len(b)-1 {
		return string(b[i+1:])
	}
	for len(b) > 0 && b[0]&0xC0 == 0x80 {
		b = b[1:]
	}
	return string(b)
}

func (t *translator) itemStarted(params []byte, sink acpbridge.Sink) {
	var n itemNotification
	if err := json.Unmarshal(params, &n); err != nil {
		t.log.Warn("decode item/started", "err", err)
		return
	}
	it := &n.Item
	switch it.Type {
	case "agentMessage":
		if t.reviewing {
			t.hideReviewerOutput(it.ID)
			return
		}
		phase := phaseOf(it.Phase)
		ctx, cancel := context.WithTimeout(t.ctx, phaseTimeout)
		if err := t.phases.SetPhase(ctx, t.threadID, it.ID, string(phase)); err != nil {
			// This process still routes the item (the cache has it).
			t.log.Warn("record message phase", "thread", t.threadID, "item", it.ID, "err", err)
		}
		cancel()
		t.lastItem, t.lastPhase, t.lastStreamed = it.ID, phase, false
	case "commandExecution":
		t.outputs[it.ID] = &commandOutput{}
		sink.Update(acp.SessionUpdate{ToolCall: &acp.SessionUpdateToolCall{
			SessionUpdate: "tool_call",
			ToolCallId:    acp.ToolCallId(it.ID),
			Title:         it.Command,
			Kind:          acp.ToolKindExecute,
			Status:        acp.ToolCallStatusInProgress,
			RawInput:      map[string]any{"command": it.Command, "cwd": it.Cwd},
		}})
	case "fileChange":
		t.changes[it.ID] = it.Changes
		sink.Update(acp.SessionUpdate{ToolCall: &acp.SessionUpdateToolCall{
			SessionUpdate: "tool_call",
			ToolCallId:    acp.ToolCallId(it.ID),
			Title:         fileChangeTitle(it.Changes),
			Kind:          acp.ToolKindEdit,
			Status:        acp.ToolCallStatusInProgress,
			Content:       diffContent(it.Changes),
			Locations:     locations(it.Changes),
		}})
	case "mcpToolCall":
		sink.Update(acp.SessionUpdate{ToolCall: &acp.SessionUpdateToolCall{
			SessionUpdate: "tool_call",
			ToolCallId:    acp.ToolCallId(it.ID),
			Title:         it.Server + ": " + it.Tool,
			Kind:          acp.ToolKindOther,
			Status:        acp.ToolCallStatusInProgress,
			RawInput:      it.Arguments,
		}})
	case "enteredReviewMode":
		t.reviewing = true
		sink.Update(thought(it.ID, reviewStartedText(it.Review)))
	case "exitedReviewMode":
		t.reviewing = false
	case "webSearch":
		sink.Update(acp.SessionUpdate{ToolCall: &acp.SessionUpdateToolCall{
			SessionUpdate: "tool_call",
			ToolCallId:    acp.ToolCallId(it.ID),
			Title:         webSearchTitle(it.Query),
			Kind:          acp.ToolKindFetch,
			Status:        acp.ToolCallStatusInProgress,
		}})
	}
}

func (t *translator) itemCompleted(params []byte, sink acpbridge.Sink) {
	var n itemNotification
	if err := json.Unmarshal(params, &n); err != nil {
		t.log.Warn("decode item/completed", "err", err)
		return
	}
	it := &n.Item
	switch it.Type {
	case "agentMessage":
		if t.reviewerOutput(it.ID) {
			return
		}
		if _, ok := t.streamed[it.ID]; !ok && it.Text != "" {
			// Codex completed a message without streaming it: deliver it whole.
			sink.Update(acpbridge.AgentText(phaseOf(it.Phase), it.ID, it.Text))
		}
		delete(t.streamed, it.ID)
		if t.lastItem == it.ID {
			t.lastItem, t.lastPhase, t.lastStreamed = "", "", false
		}
		ctx, cancel := context.WithTimeout(t.ctx, phaseTimeout)
		if err := t.phases.ForgetPhase(ctx, t.threadID, it.ID); err != nil {
			t.log.Warn("forget message phase", "thread", t.threadID, "item", it.ID, "err", err)
		}
		cancel()
	case "commandExecution":
		out := t.outputs[it.ID]
		delete(t.outputs, it.ID)
		u := &acp.SessionToolCallUpdate{
			SessionUpdate: "tool_call_update",
			ToolCallId:    acp.ToolCallId(it.ID),
			Status:        acp.Ptr(toolStatus(it.Status)),
			Content:       missingOutput(out, it.AggregatedOutput),
		}
		if it.ExitCode != nil {
			u.RawOutput = map[string]any{"exitCode": *it.ExitCode}
		}
		sink.Update(acp.SessionUpdate{ToolCallUpdate: u})
	case "imageView":
		if it.Path != "" {
			sink.Update(acpbridge.ImageItem(it.ID, "Viewed image", it.Path))
		}
	case "imageGeneration":
		if it.SavedPath != nil && *it.SavedPath != "" {
			sink.Update(acpbridge.GeneratedImageItem(it.ID, *it.SavedPath))
		}
	case "fileChange":
		delete(t.changes, it.ID)
		sink.Update(acp.SessionUpdate{ToolCallUpdate: &acp.SessionToolCallUpdate{
			SessionUpdate: "tool_call_update",
			ToolCallId:    acp.ToolCallId(it.ID),
			Status:        acp.Ptr(toolStatus(it.Status)),
		}})
	case "mcpToolCall":
		u := &acp.SessionToolCallUpdate{
			SessionUpdate: "tool_call_update",
			ToolCallId:    acp.ToolCallId(it.ID),
			Status:        acp.Ptr(toolStatus(it.Status)),
		}
		if it.Error != nil && it.Error.Message != "" {
			u.Content = []acp.ToolCallContent{acp.ToolContent(acp.TextBlock(it.Error.Message))}
		} else if it.Result != nil {
			for _, c := range it.Result.Content {
				if c.Type == "text" {
					u.Content = append(u.Content, acp.ToolContent(acp.TextBlock(c.Text)))
				}
			}
		}
		sink.Update(acp.SessionUpdate{ToolCallUpdate: u})
	case "webSearch":
		sink.Update(acp.SessionUpdate{ToolCallUpdate: &acp.SessionToolCallUpdate{
			SessionUpdate: "tool_call_update",
			ToolCallId:    acp.ToolCallId(it.ID),
			Status:        acp.Ptr(acp.ToolCallStatusCompleted),
			Title:         acp.Ptr(webSearchTitle(it.Query)),
		}})
	case "contextCompaction":
		sink.Notice(acpbridge.Notice{Level: acpbridge.NoticeInfo, Text: "Context compacted"})
	}
}

// fileChanges returns the changes of a file change item that has started and
// not completed.
func (t *translator) fileChanges(itemID string) []fileUpdateChange { return t.changes[itemID] }

func (t *translator) plan(params []byte, sink acpbridge.Sink) {
	var n planNotification
	if err := json.Unmarshal(params, &n); err != nil {
		t.log.Warn("decode turn/plan/updated", "err", err)
		return
	}
	entries := make([]acp.PlanEntry, 0, len(n.Plan))
	for _, s := range n.Plan {
		entries = append(entries, acp.PlanEntry{
			Content:  s.Step,
			Priority: acp.PlanEntryPriorityMedium,
			Status:   planStatus(s.Status),
		})
	}
	sink.Update(acp.SessionUpdate{Plan: &acp.SessionUpdatePlan{SessionUpdate: "plan", Entries: entries}})
}

func (t *translator) usage(params []byte, sink acpbridge.Sink) {
	var n tokenUsageNotification
	if err := json.Unmarshal(params, &n); err != nil {
		t.log.Warn("decode thread/tokenUsage/updated", "err", err)
		return
	}
	if n.TokenUsage.ModelContextWindow == nil {
		return // ACP's usage_update needs the window size
	}
	// The breakdown rides along in _meta: the audit trail and the token
	// limits count what each turn used.
	sink.Update(acp.SessionUpdate{UsageUpdate: acpbridge.WithUsage(&acp.SessionUsageUpdate{
		SessionUpdate: "usage_update",
		Used:          int(n.TokenUsage.Last.TotalTokens),
		Size:          *n.TokenUsage.ModelContextWindow,
	}, acpbridge.Usage{Last: n.TokenUsage.Last.tokens(), Total: n.TokenUsage.Total.tokens()})})
}

func (b tokenBreakdown) tokens() acpbridge.Tokens {
	return acpbridge.Tokens{Input: b.InputTokens, CachedInput: b.CachedInputTokens, Output: b.OutputTokens,
		Reasoning: b.ReasoningOutputTokens, Total: b.TotalTokens}
}

// notice translates the notifications that are for the user but never part
// of the answer. It reports false for a method it does not know.
func notice(method string, params []byte) (acpbridge.Notice, bool) {
	switch method {
	case "error":
		var n errorNotification
		_ = json.Unmarshal(params, &n)
		text := withDetails(n.Error.Message, n.Error.AdditionalDetails)
		if n.WillRetry {
			return acpbridge.Notice{Level: acpbridge.NoticeWarning, Text: text + " (retrying)"}, true
		}
		return acpbridge.Notice{Level: acpbridge.NoticeError, Text: text}, true
	case "warning", "guardianWarning":
		var n warningNotification
		_ = json.Unmarshal(params, &n)
		return acpbridge.Notice{Level: acpbridge.NoticeWarning, Text: n.Message}, true
	case "configWarning":
		var n summaryNotification
		_ = json.Unmarshal(params, &n)
		return acpbridge.Notice{Level: acpbridge.NoticeWarning, Text: withDetails(n.Summary, n.Details)}, true
	case "deprecationNotice":
		var n summaryNotification
		_ = json.Unmarshal(params, &n)
		return acpbridge.Notice{Level: acpbridge.NoticeInfo, Text: withDetails(n.Summary, n.Details)}, true
	case "thread/compacted":
		return acpbridge.Notice{Level: acpbridge.NoticeInfo, Text: "Context compacted"}, true
	case "model/rerouted":
		var n modelReroutedNotification
		_ = json.Unmarshal(params, &n)
		return acpbridge.Notice{Level: acpbridge.NoticeInfo, Text: fmt.Sprintf("Model rerouted from %s to %s", n.FromModel, n.ToModel)}, true
	}
	return acpbridge.Notice{}, false
}

func withDetails(s string, details *string) string {
	if details != nil && *details != "" {
		return s + ": " + *details
	}
	return s
}

func phaseOf(p *string) acpbridge.Phase {
	if p == nil {
		return acpbridge.PhaseNone
	}
	return acpbridge.Phase(*p)
}

func thought(itemID, text string) acp.SessionUpdate {
	var id *string
	if itemID != "" {
		id = &itemID
	}
	return acp.SessionUpdate{AgentThoughtChunk: &acp.SessionUpdateAgentThoughtChunk{
		SessionUpdate: "agent_thought_chunk", Content: acp.TextBlock(text), MessageId: id,
	}}
}

func toolStatus(codexStatus string) acp.ToolCallStatus {
	switch codexStatus {
	case "completed":
		return acp.ToolCallStatusCompleted
	case "failed", "declined":
		return acp.ToolCallStatusFailed
	default:
		return acp.ToolCallStatusInProgress
	}
}

func planStatus(codexStatus string) acp.PlanEntryStatus {
	switch codexStatus {
	case "completed":
		return acp.PlanEntryStatusCompleted
	case "inProgress":
		return acp.PlanEntryStatusInProgress
	default:
		return acp.PlanEntryStatusPending
	}
}

func webSearchTitle(query string) string {
	if query == "" {
		return "Web search"
	}
	return "Web search: " + query
}

func fileChangeTitle(changes []fileUpdateChange) string {
	paths := make([]string, 0, len(changes))
	for _, c := range changes {
		paths = append(paths, c.Path)
	}
	if len(paths) == 0 {
		return "Edit files"
	}
	return "Edit " + strings.Join(paths, ", ")
}

func locations(changes []fileUpdateChange) []acp.ToolCallLocation {
	var locs []acp.ToolCallLocation
	for _, c := range changes {
		locs = append(locs, acp.ToolCallLocation{Path: c.Path})
	}
	return locs
}

// diffContent turns Codex's per-file changes into ACP diffs. Codex gives a
// new file's content, a deleted file's content, or a unified diff for an
// update; ACP wants old and new text, so an update becomes the hunks' old
// side (context and removed lines) against their new side (context and added
// lines): exactly the changed regions, rendered as a diff by any client.
func diffContent(changes []fileUpdateChange) []acp.ToolCallContent {
	var out []acp.ToolCallContent
	for _, c := range changes {
		switch c.Kind.Type {
		case "add":
			out = append(out, acp.ToolDiffContent(c.Path, c.Diff))
		case "delete":
			out = append(out, acp.ToolDiffContent(c.Path, "", c.Diff))
		default:
			oldText, newText := splitUnifiedDiff(c.Diff)
			path := c.Path
			if c.Kind.MovePath != nil && *c.Kind.MovePath != "" {
				path = *c.Kind.MovePath
			}
			out = append(out, acp.ToolDiffContent(path, newText, oldText))
		}
	}
	return out
}

func splitUnifiedDiff(diff string) (oldText, newText string) {
	var o, n strings.Builder
	for _, line := range strings.SplitAfter(diff, "\n") {
		switch {
		case line == "", strings.HasPrefix(line, "---"), strings.HasPrefix(line, "+++"),
			strings.HasPrefix(line, "\\"):
		case strings.HasPrefix(line, "@@"):
			if o.Len() > 0 || n.Len() > 0 {
				o.WriteString("…\n")
				n.WriteString("…\n")
			}
		case strings.HasPrefix(line, "-"):
			o.WriteString(line[1:])
		case strings.HasPrefix(line, "+"):
			n.WriteString(line[1:])
		case strings.HasPrefix(line, " "):
			o.WriteString(line[1:])
			n.WriteString(line[1:])
		default:
			o.WriteString(line)
			n.WriteString(line)
		}
	}
	return o.String(), n.String()
}
