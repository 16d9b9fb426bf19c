package bot

// AttachmentKind says what a file a message brought is: it decides how the
// agent sees it (a picture as an image input, anything else by its path).
type AttachmentKind string

const (
	AttachImage AttachmentKind = "image"
	AttachFile  AttachmentKind = "file"
	AttachVideo AttachmentKind = "video"
)

// Attachment is one file a message brought. The channel fetches it while it
// receives the message, because the platform's link expires within minutes
// (WeCom: 5), so Data holds the plain bytes, or Problem says why there are
// none.
type Attachment struct {
	Kind AttachmentKind
	// Name is a safe file name, one path element, that the channel derived
	// from the platform's (Content-Disposition) or from the message id; the
	// turn saves the file under it in the conversation's workspace.
	Name string
	// MIME is the media type, when known (image/png, application/pdf).
	MIME string
	Data []byte
	// Problem, when not empty, says in one line why the file is missing
	// (the download failed or timed out, it was too large, it could not be
	// decrypted); the card shows it and the rest of the message still runs.
	Problem string
}
