package acpbridge

import (
	"path/filepath"

	acp "github.com/coder/acp-go-sdk"
)

// imageMeta is the _meta key of a tool call that carries a picture the
// agent produced or looked at, by its absolute path.
const imageMeta = "wecodex/image"

// ImageItem is the update of a picture the agent produced or looked at
// (Codex's imageView and imageGeneration items): a completed read tool
// call naming it, with the path in its _meta, so a client may send the
// picture back as it sends one the answer links to (ImagePath).
func ImageItem(id, title, path string) acp.SessionUpdate {
	return acp.SessionUpdate{ToolCall: &acp.SessionUpdateToolCall{
		SessionUpdate: "tool_call",
		ToolCallId:    acp.ToolCallId(id),
		Title:         title + " " + filepath.Base(path),
		Kind:          acp.ToolKindRead,
		Status:        acp.ToolCallStatusCompleted,
		Locations:     []acp.ToolCallLocation{{Path: path}},
		Meta:          map[string]any{imageMeta: path},
	}}
}

// ImagePath is the path of the picture u carries (ImageItem).
func ImagePath(u acp.SessionUpdate) (string, bool) {
	if u.ToolCall == nil {
		return "", false
	}
	p, ok := u.ToolCall.Meta[imageMeta].(string)
	return p, ok && p != ""
}
