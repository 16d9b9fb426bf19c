package acpbridge

import (
	"path/filepath"

	acp "github.com/coder/acp-go-sdk"
)

// _meta keys of a tool call that carries a picture by its absolute path:
// imageMeta one the agent looked at (inside the workspace, when it may be
// sent), generatedImageMeta one the agent's image tool drew and saved
// outside it (Codex: under CODEX_HOME/generated_images).
const (
	imageMeta          = "wecodex/image"
	generatedImageMeta = "wecodex/generated_image"
)

// ImageItem is the update of a picture the agent looked at (Codex's
// imageView item): a completed read tool call naming it, with the path in
// its _meta, so a client may send the picture back as it sends one the
// answer links to (ImagePath).
func ImageItem(id, title, path string) acp.SessionUpdate {
	return imageUpdate(id, title, path, imageMeta)
}

// GeneratedImageItem is the update of a picture the agent's image tool
// drew (Codex's imageGeneration item, at its savedPath): like ImageItem,
// but under its own _meta key (GeneratedImagePath), since the picture lies
// outside the workspace and only the agent's own report of it may name it.
func GeneratedImageItem(id, path string) acp.SessionUpdate {
	return imageUpdate(id, "Generated image", path, generatedImageMeta)
}

func imageUpdate(id, title, path, key string) acp.SessionUpdate {
	return acp.SessionUpdate{ToolCall: &acp.SessionUpdateToolCall{
		SessionUpdate: "tool_call",
		ToolCallId:    acp.ToolCallId(id),
		Title:         title + " " + filepath.Base(path),
		Kind:          acp.ToolKindRead,
		Status:        acp.ToolCallStatusCompleted,
		Locations:     []acp.ToolCallLocation{{Path: path}},
		Meta:          map[string]any{key: path},
	}}
}

// ImagePath is the path of the picture u carries (ImageItem).
func ImagePath(u acp.SessionUpdate) (string, bool) { return metaPath(u, imageMeta) }

// GeneratedImagePath is the path of the generated picture u carries
// (GeneratedImageItem).
func GeneratedImagePath(u acp.SessionUpdate) (string, bool) {
	return metaPath(u, generatedImageMeta)
}

func metaPath(u acp.SessionUpdate, key string) (string, bool) {
	if u.ToolCall == nil {
		return "", false
	}
	p, ok := u.ToolCall.Meta[key].(string)
	return p, ok && p != ""
}
