package projects

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// BranchPrefix starts every conversation's branch: wecodex/<id>.
const BranchPrefix = "wecodex/"

// ConversationID is a conversation's key made into one path element that is
// also a valid git ref name component: characters outside [A-Za-z0-9_-]
// become '_', at most 64 of them are kept, and a short hash of the raw key
// is appended whenever anything was changed, so two keys never share an id
// ("group:wrkChat1" is "group_wrkChat1-" and 12 hex digits).
func ConversationID(conversation string) string {
	var b strings.Builder
	changed := false
	for _, r := range conversation {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_':
			b.WriteRune(r)
		case r == '-' && b.Len() > 0:
			b.WriteRune(r)
		default:
			b.WriteByte('_')
			changed = true
		}
	}
	id := b.String()
	if len(id) > 64 {
		id, changed = id[:64], true
	}
	if id == "" || changed {
		sum := sha256.Sum256([]byte(conversation))
		id += "-" + hex.EncodeToString(sum[:6])
	}
	return id
}

// Branch is the branch a conversation works on in a git project.
func Branch(conversation string) string { return BranchPrefix + ConversationID(conversation) }

// validName mirrors configs.ValidProjectName: one plain path element.
func validName(name string) bool {
	if name == "" || len(name) > 64 || name[0] == '.' || name[0] == '-' {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// validID reports whether id could be a ConversationID: [A-Za-z0-9_-], not
// starting with '-' (so no ".", "..", or a hidden directory).
func validID(id string) bool {
	if id == "" || id[0] == '-' {
		return false
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}
