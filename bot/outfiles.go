package bot

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
)

// FileLimits are cards.files.*: how many files one answer may send back,
// and how large each and all together may be.
type FileLimits struct {
	MaxCount      int
	MaxBytes      int64
	MaxTotalBytes int64
}

// Defaults of FileLimits, also what configs documents. 10 pictures is what
// one WeCom stream frame carries; 20 MB is WeCom's cap for a file message.
const (
	DefaultFilesMaxCount      = 10
	DefaultFilesMaxBytes      = 20 << 20
	DefaultFilesMaxTotalBytes = 50 << 20
)

func (l *FileLimits) setDefaults() {
	if l.MaxCount <= 0 {
		l.MaxCount = DefaultFilesMaxCount
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultFilesMaxBytes
	}
	if l.MaxTotalBytes <= 0 {
		l.MaxTotalBytes = DefaultFilesMaxTotalBytes
	}
}

// OutFile is one file an answer points at, as the turn runner hands it to
// the channel: the bytes of a regular file inside the conversation's
// workspace, read through os.Root, or, when Refused is set, why it is not
// sent (Data is then nil).
type OutFile struct {
	// Name is the file's path relative to the workspace, slash-separated,
	// as the card names it.
	Name string
	// Image is set for a PNG or JPEG (by its name and its first bytes),
	// which WeCom can show as a picture.
	Image   bool
	Data    []byte
	Refused string
}

// Base is the file's own name, as a chat shows an attachment.
func (f OutFile) Base() string { return path.Base(f.Name) }

// FileSender is a Presenter that sends the files its turn's answer points
// at back to the chat. The turn runner calls SendFiles once, after the
// agent's turn and before the final snapshot, with the files that may be
// sent; for each it returns, in order, the line the card shows after the
// file's name: how it reaches the user, or why it did not. A presenter that
// is not a FileSender sends none, and the card says so.
type FileSender interface {
	SendFiles(ctx context.Context, files []OutFile) []string
}

// Reasons a file stays text; each names what the user or an admin can act on.
const (
	textFileOutside    = "not sent: it is outside the conversation's workspace"
	textFileMissing    = "not sent: there is no such file in the workspace"
	textFileNotRegular = "not sent: it is not a regular file"
	textFileUnread     = "not sent: it could not be read"
	textNoFileSender   = "not sent: this channel cannot send files"
	// A generated picture's path comes from the agent alone; these say why
	// one is not sent.
	textGeneratedOutside  = "not sent: it is not where Codex saves the pictures it generates"
	textGeneratedNotImage = "not sent: a generated picture is sent only as a PNG or JPEG"
)

// linkTarget finds the target of a markdown link or image: [text](target)
// or ![alt](target), with an optional title after the target.
var linkTarget = regexp.MustCompile(`!?\[[^\]\n]*\]\(\s*(<[^>\n]+>|[^)\s]+)(?:\s+"[^"\n]*")?\s*\)`)

// linkedPaths returns the workspace-relative paths the answer links to, in
// order of first appearance, each once; ok false for a link that names a
// path outside the workspace (kept, under its link text, so the card says
// it was refused). URLs with a scheme and in-page anchors are not files.
func linkedPaths(answer, workspace string) []linked {
	var out []linked
	seen := map[string]bool{}
	for _, m := range linkTarget.FindAllStringSubmatch(answer, -1) {
		t := strings.TrimSuffix(strings.TrimPrefix(m[1], "<"), ">")
		if t == "" || strings.HasPrefix(t, "#") || hasScheme(t) {
			continue
		}
		if i := strings.IndexAny(t, "#?"); i >= 0 {
			t = t[:i]
		}
		if u, err := url.PathUnescape(t); err == nil {
			t = u
		}
		l := resolveLink(t, workspace)
		if l.name == "" || seen[l.name] {
			continue
		}
		seen[l.name] = true
		out = append(out, l)
	}
	return out
}

type linked struct {
	name    string // relative to the workspace when inside, else as linked
	outside bool
	// generated marks a picture the agent's image tool saved: open is then
	// its path under Config.GeneratedImages.
	generated bool
	open      string
}

func hasScheme(t string) bool {
	u, err := url.Parse(t)
	return err == nil && u.Scheme != "" && len(u.Scheme) > 1 // a Windows drive letter is no scheme
}

// resolveLink makes t relative to the workspace. An absolute path inside the
// workspace is what Codex often writes; anything that climbs out is outside.
func resolveLink(t, workspace string) linked {
	t = strings.TrimPrefix(t, "file://")
	if filepath.IsAbs(t) {
		rel, err := filepath.Rel(workspace, filepath.Clean(t))
		if err != nil || !filepath.IsLocal(rel) {
			return linked{name: t, outside: true}
		}
		return linked{name: filepath.ToSlash(rel)}
	}
	clean := path.Clean(filepath.ToSlash(t))
	if !filepath.IsLocal(filepath.FromSlash(clean)) {
		return linked{name: t, outside: true}
	}
	return linked{name: clean}
}

// PickFiles reads the files answer points at inside workspace, within
// limits. Every link to a path becomes one OutFile: the bytes when it may be
// sent, else the reason. Files are opened through os.Root, so neither ".."
// nor a symlink leads out of the workspace.
func PickFiles(answer, workspace string, limits FileLimits) []OutFile {
	return PickTurnFiles(answer, workspace, nil, "", limits)
}

// PickTurnFiles is PickFiles followed by the pictures the agent's image
// tool saved (generated: the absolute paths the agent reported, never a
// path from the answer), within the same limits. Each is read through an
// os.Root at generatedDir, and sent only as a PNG or JPEG; one elsewhere,
// or with no generatedDir, is refused. The card names it
// generated_images/<its path under generatedDir>.
func PickTurnFiles(answer, workspace string, generated []string, generatedDir string, limits FileLimits) []OutFile {
	limits.setDefaults()
	links := linkedPaths(answer, workspace)
	for _, p := range generated {
		links = append(links, generatedLink(p, generatedDir))
	}
	if len(links) == 0 {
		return nil
	}
	roots := openRoots(workspace, generatedDir)
	defer roots.close()
	var out []OutFile
	var total int64
	sent := 0
	for _, l := range links {
		f := OutFile{Name: l.name}
		switch {
		case l.outside && l.generated:
			f.Refused = textGeneratedOutside
		case l.outside:
			f.Refused = textFileOutside
		case sent >= limits.MaxCount:
			f.Refused = fmt.Sprintf("not sent: an answer sends at most %d files (cards.files.max_count)", limits.MaxCount)
		default:
			f.Data, f.Refused = roots.read(l, limits.MaxBytes)
			if f.Refused == "" && l.generated && !isImage(l.open, f.Data) {
				f.Data, f.Refused = nil, textGeneratedNotImage
			}
			if f.Refused == "" && total+int64(len(f.Data)) > limits.MaxTotalBytes {
				f.Data, f.Refused = nil, fmt.Sprintf("not sent: with it the answer's files would pass %s together (cards.files.max_total_bytes)", sizeText(limits.MaxTotalBytes))
			}
		}
		if f.Refused == "" {
			sent++
			total += int64(len(f.Data))
			f.Image = isImage(f.Name, f.Data)
		}
		out = append(out, f)
	}
	return out
}

// generatedLink is a picture the agent's image tool saved at p, by its path
// under dir; outside when it is not under dir (or there is no dir).
func generatedLink(p, dir string) linked {
	if dir == "" || !filepath.IsAbs(p) {
		return linked{name: p, outside: true, generated: true}
	}
	rel, err := filepath.Rel(filepath.Clean(dir), filepath.Clean(p))
	if err != nil || !filepath.IsLocal(rel) {
		return linked{name: p, outside: true, generated: true}
	}
	return linked{name: "generated_images/" + filepath.ToSlash(rel), generated: true, open: rel}
}

// fileRoots are the roots files are read through: the workspace and the
// generated pictures' directory (nil when it cannot be opened).
type fileRoots struct{ workspace, generated *os.Root }

func openRoots(workspace, generatedDir string) fileRoots {
	var r fileRoots
	r.workspace, _ = os.OpenRoot(workspace)
	if generatedDir != "" {
		r.generated, _ = os.OpenRoot(generatedDir)
	}
	return r
}

func (r fileRoots) read(l linked, max int64) ([]byte, string) {
	root, name := r.workspace, l.name
	if l.generated {
		root, name = r.generated, filepath.ToSlash(l.open)
	}
	if root == nil {
		return nil, textFileUnread
	}
	data, refused := readInRoot(root, name, max)
	if l.generated && refused == textFileOutside {
		refused = textGeneratedOutside // a symlink out of the directory
	}
	return data, refused
}

func (r fileRoots) close() {
	for _, root := range []*os.Root{r.workspace, r.generated} {
		if root != nil {
			_ = root.Close()
		}
	}
}

// readInRoot reads name from root when it is a regular file of at most max
// bytes.
func readInRoot(root *os.Root, name string, max int64) ([]byte, string) {
	fh, err := root.Open(filepath.FromSlash(name))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, textFileMissing
	case err != nil:
		// os.Root refuses a path (or a symlink) that escapes the root.
		return nil, textFileOutside
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return nil, textFileUnread
	}
	if !st.Mode().IsRegular() {
		return nil, textFileNotRegular
	}
	if st.Size() > max {
		return nil, fmt.Sprintf("not sent: it is %s, over the %s each file may have (cards.files.max_bytes)", sizeText(st.Size()), sizeText(max))
	}
	// The file may grow between Stat and Read: never read past the cap.
	data, err := io.ReadAll(io.LimitReader(fh, max+1))
	if err != nil {
		return nil, textFileUnread
	}
	if int64(len(data)) > max {
		return nil, fmt.Sprintf("not sent: it is over the %s each file may have (cards.files.max_bytes)", sizeText(max))
	}
	return data, ""
}

// isImage says whether WeCom can show the file as a picture: a .png, .jpg or
// .jpeg whose bytes are what its name says (a stream frame takes JPG and PNG
// only).
func isImage(name string, data []byte) bool {
	switch strings.ToLower(path.Ext(name)) {
	case ".png", ".jpg", ".jpeg":
	default:
		return false
	}
	ct := http.DetectContentType(data)
	return ct == "image/png" || ct == "image/jpeg"
}

// sizeText is n bytes for a person: "812 B", "12.5 KB", "20.0 MB".
func sizeText(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
}

// filesSection is the card's list of the files its answer pointed at: each
// name with how it reached the user (notes, in order) or why not.
func filesSection(files []OutFile, notes []string) string {
	var b strings.Builder
	b.WriteString("📎 **Files**")
	for i, f := range files {
		note := f.Refused
		if note == "" && i < len(notes) {
			note = notes[i]
		}
		fmt.Fprintf(&b, "\n- `%s` — %s", strings.ReplaceAll(f.Name, "`", "'"), note)
	}
	return b.String()
}
