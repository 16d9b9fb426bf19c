package acpbridge

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"mime"
	"os"
	"path"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// AttachmentsDir is where the files a prompt brought (a chat message's
// pictures and files, an ACP client's image blocks) are saved, relative to
// the session's workspace.
const AttachmentsDir = "attachments"

// SaveAttachment writes data into the workspace's attachments directory
// under name, or name with a suffix ("log-2.txt") when another file holds
// that name, and returns its path relative to the workspace. A file that
// already holds exactly data is reused: a re-run of the turn (queued again
// after a shutdown) finds the file it saved before instead of a copy. All
// paths go through an os.Root, so a symlink the agent left in the
// workspace cannot lead the write outside it.
func SaveAttachment(workspace, name string, data []byte) (string, error) {
	root, err := os.OpenRoot(workspace)
	if err != nil {
		return "", fmt.Errorf("open workspace: %w", err)
	}
	defer root.Close()
	if err := root.MkdirAll(AttachmentsDir, 0o700); err != nil {
		return "", fmt.Errorf("create %s: %w", AttachmentsDir, err)
	}
	for n := 1; n <= 1000; n++ {
		rel := path.Join(AttachmentsDir, withSuffix(name, n))
		switch err := createFile(root, rel, data); {
		case err == nil:
			return rel, nil
		case !errors.Is(err, fs.ErrExist):
			return "", err
		case holds(root, rel, data):
			return rel, nil
		}
	}
	return "", fmt.Errorf("every name like %q is taken in %s", name, AttachmentsDir)
}

// createFile writes data to a new file rel; fs.ErrExist when rel exists.
func createFile(root *os.Root, rel string, data []byte) error {
	f, err := root.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		_ = root.Remove(rel) // a partial file would pass for the attachment
		return fmt.Errorf("write %s: %w", rel, werr)
	}
	return nil
}

// holds reports whether rel is a regular file whose content is data.
func holds(root *os.Root, rel string, data []byte) bool {
	fi, err := root.Lstat(rel)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() != int64(len(data)) {
		return false
	}
	have, err := root.ReadFile(rel)
	return err == nil && bytes.Equal(have, data)
}

// withSuffix is name for n == 1, else name with "-n" before its extension.
func withSuffix(name string, n int) string {
	if n == 1 {
		return name
	}
	ext := path.Ext(name)
	if ext == name { // ".env": all extension, no stem
		ext = ""
	}
	return strings.TrimSuffix(name, ext) + "-" + strconv.Itoa(n) + ext
}

// AttachmentName is name when it is one safe path element (whoever derived
// it, it came from the network, so it is checked again here), else a name
// made from the attachment's place (0-based index) and media type.
func AttachmentName(name string, index int, mime string) string {
	if isSafeName(name) {
		return name
	}
	return "attachment-" + strconv.Itoa(index+1) + Extension(mime)
}

func isSafeName(name string) bool {
	if name == "" || name == "." || name == ".." || len(name) > 255 || !utf8.ValidString(name) {
		return false
	}
	for _, r := range name {
		if r == '/' || r == '\\' || unicode.IsControl(r) {
			return false
		}
	}
	return true
}

// Extension is the usual file extension of a media type ("image/png" →
// ".png"), "" when unknown: what a file that came without a name is saved
// under, by the agent side and by the channels alike. The common types are
// listed so the answer does not depend on the machine's mime.types.
func Extension(mimeType string) string {
	mt, _, _ := mime.ParseMediaType(mimeType)
	switch mt {
	case "image/png":
		return ".png"
	case "image/jpeg":
		return ".jpg"
	case "image/gif":
		return ".gif"
	case "image/webp":
		return ".webp"
	case "image/bmp":
		return ".bmp"
	case "video/mp4":
		return ".mp4"
	case "application/pdf":
		return ".pdf"
	case "text/plain":
		return ".txt"
	case "application/zip":
		return ".zip"
	}
	return ""
}
