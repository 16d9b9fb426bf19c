package wecom

import (
	"mime"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/wecodex/wecodex/acpbridge"
)

// maxNameBytes bounds a file name we make: well under every file system's 255,
// with room for the turn to add a suffix that keeps two files apart.
const maxNameBytes = 120

// maxExtBytes bounds the extension kept when a long name is cut.
const maxExtBytes = 16

// MediaName is the file name an attachment is saved under: the one WeCom's
// Content-Disposition gives (filename*, else filename), made safe, or else
// fallback (the message id) with an extension for mimeType. The result is
// always one path element a file system accepts: no directory, no "..", no
// control or separator characters, at most maxNameBytes. A name from the
// network is never used as a path as it came.
func MediaName(contentDisposition, fallback, mimeType string) string {
	return FileName(dispositionName(contentDisposition), fallback, mimeType)
}

// FileName is what MediaName makes of a name WeCom gave otherwise (the
// self-built app's FileName): name made safe, or else fallback with an
// extension for mimeType.
func FileName(given, fallback, mimeType string) string {
	if name := SafeName(given); name != "" {
		return name
	}
	name := SafeName(fallback)
	if name == "" {
		name = "attachment"
	}
	if ext := acpbridge.Extension(mimeType); ext != "" && path.Ext(name) == "" {
		name = cut(name, maxNameBytes-len(ext)) + ext
	}
	return name
}

// dispositionName is the filename a Content-Disposition names; mime decodes
// RFC 2231/5987 filename*=UTF-8”… and prefers it to filename.
func dispositionName(cd string) string {
	if cd == "" {
		return ""
	}
	_, params, err := mime.ParseMediaType(cd)
	if err != nil {
		return ""
	}
	return params["filename"]
}

// SafeName reduces s to one safe path element, or "" when nothing usable is
// left. It keeps the last element of any path (either slash), drops control,
// format and separator-like characters, trims the dots and spaces Windows and
// shells trip on, and cuts the name to maxNameBytes keeping its extension.
func SafeName(s string) string {
	s = strings.ToValidUTF8(s, "")
	if i := strings.LastIndexAny(s, `/\`); i >= 0 {
		s = s[i+1:]
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case unicode.IsSpace(r): // tabs and newlines too: one plain space
			b.WriteRune(' ')
		case unicode.IsControl(r), unicode.Is(unicode.Cf, r):
		case strings.ContainsRune(`<>:"|?*`, r):
			b.WriteRune('_')
		default:
			b.WriteRune(r)
		}
	}
	name := strings.Trim(b.String(), " .")
	if name == "" {
		return ""
	}
	if len(name) <= maxNameBytes {
		return name
	}
	ext := path.Ext(name)
	if len(ext) > maxExtBytes || !utf8.ValidString(ext) {
		ext = ""
	}
	return strings.TrimRight(cut(name[:len(name)-len(ext)], maxNameBytes-len(ext)), " .") + ext
}

// cut shortens s to at most n bytes on a rune boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
