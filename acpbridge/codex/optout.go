package codex

// optOutNotifications are the app-server notifications wecodex never reads:
// every ServerNotification method of Codex 0.171.0 (`codex app-server
// generate-json-schema`) except those handleNotification dispatches. They
// are named in initialize (capabilities.optOutNotificationMethods), so the
// app-server neither serializes nor writes them and the read loop never
// scans them. In the benchmark's plain answer that is only a handful per
// turn; in a coding turn it drops the whole-diff turn/diff/updated after
// every patch, the streamed patch and terminal notifications, and the
// status and rate-limit chatter. An unknown name is ignored by Codex, so
// the list may name methods an older Codex lacks; a method a newer Codex
// adds still arrives and is ignored by the dispatcher as before.
//
// TestOptOutListMatchesSchema checks this list against the pinned Codex's
// schema and against the methods the dispatcher reads.
var optOutNotifications = []string{
	"thread/started", "thread/status/changed", "thread/readState/changed",
	"thread/archived", "thread/deleted", "thread/unarchived", "thread/reverted",
	"skills/changed", "thread/name/updated", "thread/section/changed",
	"thread/attachment/updated", "thread/goal/updated",
	"thread/prediction/updated", "thread/goal/cleared", "thread/queue/changed",
	"project/changed", "thread/project/updated", "thread/environment/connected",
	"thread/environment/disconnected", "thread/settings/updated",
	"hook/started", "hook/completed", "turn/diff/updated",
	"item/autoApprovalReview/started", "item/autoApprovalReview/completed",
	"autoApprovalReview/strictReviewRequired", "item/plan/delta",
	"command/exec/outputDelta", "process/outputDelta", "thread/search/partial",
	"process/exited", "item/commandExecution/terminalInteraction",
	"item/fileChange/outputDelta", "item/fileChange/patchUpdated",
	"serverRequest/resolved", "item/mcpToolCall/progress",
	"mcpServer/oauthLogin/completed", "mcpServer/startupStatus/updated",
	"mcpServer/event/stream/notification", "account/updated",
	"account/gatewayOAuth/changed", "account/rateLimits/updated",
	"app/list/updated", "remoteControl/status/changed",
	"externalAgentConfig/import/progress",
	"externalAgentConfig/import/completed", "fs/changed", "model/verification",
	"modelProvider/authRecoveryStarted", "modelProvider/authRecoveryCompleted",
	"turn/moderationMetadata", "model/safetyBuffering/updated",
	"fuzzyFileSearch/sessionUpdated", "fuzzyFileSearch/sessionCompleted",
	"thread/realtime/started", "thread/realtime/itemAdded",
	"thread/realtime/item/started", "thread/realtime/item/transcript/delta",
	"thread/realtime/item/completed", "thread/realtime/transcript/delta",
	"thread/realtime/transcript/done", "thread/realtime/outputAudio/delta",
	"thread/realtime/sdp", "thread/realtime/error", "thread/realtime/closed",
	"windows/worldWritableWarning", "windowsSandbox/setupCompleted",
	"account/login/completed",
}
