package codex

import "encoding/json"

// Wire types of the Codex app-server protocol (see `codex app-server
// generate-json-schema`). Only the fields wecodex reads or sends are here;
// Codex ignores what we omit and we ignore what we do not name.

// Client → server requests.

type initializeParams struct {
	ClientInfo   clientInfo             `json:"clientInfo"`
	Capabilities initializeCapabilities `json:"capabilities"`
}

type initializeCapabilities struct {
	OptOutNotificationMethods []string `json:"optOutNotificationMethods,omitempty"`
}

type clientInfo struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version"`
}

// Config is the thread's own config layer: dotted or nested keys, as in
// config.toml, above every other layer Codex loads.
type threadStartParams struct {
	Cwd                   string         `json:"cwd,omitempty"`
	ApprovalPolicy        string         `json:"approvalPolicy,omitempty"`
	Sandbox               string         `json:"sandbox,omitempty"`
	Config                map[string]any `json:"config,omitempty"`
	Model                 string         `json:"model,omitempty"`
	DeveloperInstructions string         `json:"developerInstructions,omitempty"`
}

type threadResumeParams struct {
	ThreadID       string         `json:"threadId"`
	Cwd            string         `json:"cwd,omitempty"`
	ApprovalPolicy string         `json:"approvalPolicy,omitempty"`
	Sandbox        string         `json:"sandbox,omitempty"`
	Config         map[string]any `json:"config,omitempty"`
	Model          string         `json:"model,omitempty"`
	// DeveloperInstructions are ThreadSettings.Instructions.
	DeveloperInstructions string `json:"developerInstructions,omitempty"`
	// ExcludeTurns skips full-history hydration, which Codex deprecates; the
	// history is read page by page with thread/items/list instead.
	ExcludeTurns bool `json:"excludeTurns,omitempty"`
}

type threadResponse struct {
	Thread struct {
		ID string `json:"id"`
	} `json:"thread"`
}

type threadItemsListParams struct {
	ThreadID string `json:"threadId"`
	Cursor   string `json:"cursor,omitempty"`
	Limit    int    `json:"limit,omitempty"`
}

type threadItemsListResponse struct {
	Data []struct {
		TurnID string     `json:"turnId"`
		Item   threadItem `json:"item"`
	} `json:"data"`
	NextCursor *string `json:"nextCursor"`
}

type threadLoadedListParams struct {
	Limit int `json:"limit,omitempty"`
}

type threadUnsubscribeParams struct {
	ThreadID string `json:"threadId"`
}

type turnStartParams struct {
	ThreadID string      `json:"threadId"`
	Input    []userInput `json:"input"`
	// Model and Effort override the thread's for this turn and the next
	// ones; empty sends nothing.
	Model  string `json:"model,omitempty"`
	Effort string `json:"effort,omitempty"`
	modeOverrides
}

// userInput is one item of turn/start's input: {type:"text", text} or
// {type:"localImage", path}, a picture Codex reads from disk and sends the
// model inline.
type userInput struct {
	Type string `json:"type"`
	Text string `json:"text,omitempty"`
	Path string `json:"path,omitempty"`
}

type turnInterruptParams struct {
	ThreadID string `json:"threadId"`
	TurnID   string `json:"turnId"`
}

// Server → client notifications.

type turn struct {
	ID string `json:"id"`
	// RootTurnID is the turn a sub-turn belongs to (a review's reviewer
	// runs in one): its items and its end carry the root's id.
	RootTurnID string     `json:"rootTurnId"`
	Status     string     `json:"status"` // completed | interrupted | failed | inProgress
	Error      *turnError `json:"error"`
}

type turnError struct {
	Message           string  `json:"message"`
	AdditionalDetails *string `json:"additionalDetails"`
	// CodexErrorInfo is Codex's code for the failure: a camelCase string
	// ("unauthorized", "other", ...) or a one-key object carrying the HTTP
	// status ({"responseStreamDisconnected":{"httpStatusCode":null}}).
	CodexErrorInfo json.RawMessage `json:"codexErrorInfo"`
}

type turnNotification struct { // turn/started, turn/completed
	ThreadID string `json:"threadId"`
	Turn     turn   `json:"turn"`
}

type itemNotification struct { // item/started, item/completed
	ThreadID string     `json:"threadId"`
	TurnID   string     `json:"turnId"`
	Item     threadItem `json:"item"`
}

// threadItem is the union of the item types wecodex translates; Type says
// which fields are meaningful.
type threadItem struct {
	Type string `json:"type"`
	ID   string `json:"id"`

	// agentMessage
	Text  string  `json:"text"`
	Phase *string `json:"phase"`

	// userMessage
	Content []userInput `json:"content"`

	// commandExecution
	Command          string  `json:"command"`
	Cwd              string  `json:"cwd"`
	Status           string  `json:"status"` // inProgress | completed | failed | declined
	AggregatedOutput *string `json:"aggregatedOutput"`
	ExitCode         *int    `json:"exitCode"`

	// fileChange
	Changes []fileUpdateChange `json:"changes"`

	// mcpToolCall
	Server    string          `json:"server"`
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
	Result    *mcpResult      `json:"result"`
	Error     *struct {
		Message string `json:"message"`
	} `json:"error"`

	// webSearch
	Query string `json:"query"`

	// imageView: the picture the agent looked at; imageGeneration: where
	// Codex saved the one it made
	Path      string  `json:"path"`
	SavedPath *string `json:"savedPath"`

	// enteredReviewMode, exitedReviewMode: what is reviewed, then the
	// review itself
	Review string `json:"review"`
}

type fileUpdateChange struct {
	Path string `json:"path"`
	Diff string `json:"diff"`
	Kind struct {
		Type     string  `json:"type"` // add | delete | update
		MovePath *string `json:"move_path"`
	} `json:"kind"`
}

type mcpResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
}

// UnmarshalJSON reads an mcpToolCall's result. An imageGeneration item's
// result is the picture as a base64 string instead: it is skipped (the
// picture is read from savedPath), where failing would drop the whole item.
func (r *mcpResult) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		return nil
	}
	type plain mcpResult
	return json.Unmarshal(b, (*plain)(r))
}

type planNotification struct { // turn/plan/updated
	ThreadID string `json:"threadId"`
	TurnID   string `json:"turnId"`
	Plan     []struct {
		Step   string `json:"step"`
		Status string `json:"status"` // pending | inProgress | completed
	} `json:"plan"`
}

type tokenUsageNotification struct { // thread/tokenUsage/updated
	ThreadID   string `json:"threadId"`
	TurnID     string `json:"turnId"`
	TokenUsage struct {
		Last               tokenBreakdown `json:"last"`
		Total              tokenBreakdown `json:"total"`
		ModelContextWindow *int           `json:"modelContextWindow"`
	} `json:"tokenUsage"`
}

// tokenBreakdown is the app-server's TokenUsageBreakdown.
type tokenBreakdown struct {
	TotalTokens           int64 `json:"totalTokens"`
	InputTokens           int64 `json:"inputTokens"`
	CachedInputTokens     int64 `json:"cachedInputTokens"`
	OutputTokens          int64 `json:"outputTokens"`
	ReasoningOutputTokens int64 `json:"reasoningOutputTokens"`
}

type errorNotification struct { // error
	ThreadID  string    `json:"threadId"`
	TurnID    string    `json:"turnId"`
	Error     turnError `json:"error"`
	WillRetry bool      `json:"willRetry"`
}

type warningNotification struct { // warning, guardianWarning
	ThreadID *string `json:"threadId"`
	Message  string  `json:"message"`
}

type summaryNotification struct { // configWarning, deprecationNotice
	Summary string  `json:"summary"`
	Details *string `json:"details"`
}

type reasoningPartNotification struct { // item/reasoning/summaryPartAdded
	ThreadID     string `json:"threadId"`
	TurnID       string `json:"turnId"`
	ItemID       string `json:"itemId"`
	SummaryIndex int    `json:"summaryIndex"`
}

type modelReroutedNotification struct { // model/rerouted
	ThreadID  string `json:"threadId"`
	FromModel string `json:"fromModel"`
	ToModel   string `json:"toModel"`
}

// Server → client requests.

type approvalParams struct { // item/commandExecution/requestApproval, item/fileChange/requestApproval
	ThreadID string  `json:"threadId"`
	TurnID   string  `json:"turnId"`
	ItemID   string  `json:"itemId"`
	Command  *string `json:"command"`
	Cwd      *string `json:"cwd"`
	Reason   *string `json:"reason"`
}

type approvalResponse struct {
	Decision string `json:"decision"` // accept | acceptForSession | decline | cancel
}

// JSON-RPC envelopes, without the "jsonrpc" member Codex does not use.

type rpcRequest struct {
	ID     int64  `json:"id"`
	Method string `json:"method"`
	Params any    `json:"params,omitempty"`
}

type rpcNotification struct {
	Method string `json:"method"`
	Params any    `json:"params,omitempty"`
}

type rpcResponse struct {
	ID     json.RawMessage `json:"id"`
	Result any             `json:"result"`
}

type rpcErrorResponse struct {
	ID    json.RawMessage `json:"id"`
	Error rpcError        `json:"error"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}
