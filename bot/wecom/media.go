package wecom

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"time"

	"github.com/wecodex/wecodex/bot"
)

// Defaults of wecom.media.timeout, max_bytes and max_files: the size is
// the engine's own cap, which a channel may go below, never above.
const (
	DefaultMediaTimeout  = 30 * time.Second
	DefaultMediaMaxBytes = bot.MaxAttachmentBytes
	DefaultMediaMaxFiles = 10
)

// MediaRef is one file a message points at: WeCom's link (encrypted, alive
// for 5 minutes) and, on the long connection, the file's own key.
type MediaRef struct {
	Kind bot.AttachmentKind
	URL  string
	// AESKey is the message's aeskey (long connection); "" on the webhook,
	// whose media is encrypted with the bot's EncodingAESKey.
	AESKey string
}

// Fetcher downloads and decrypts the files of a message. The zero value
// uses the defaults; it is safe for concurrent use.
type Fetcher struct {
	// Hosts are where files may come from (wecom.allowed_hosts); nil means
	// DefaultAllowedHosts. Every URL is checked before it is asked.
	Hosts *AllowedHosts
	// Client does the downloads; nil means Hosts.Client, which checks
	// redirects and dialed addresses too. Tests of other failures may
	// pass their own.
	Client *http.Client
	// Timeout bounds one download, headers to last byte (wecom.media.timeout).
	Timeout time.Duration
	// MaxBytes caps the files of one message together, as WeCom sends
	// them, encrypted (wecom.media.max_bytes); a download stops where it
	// would pass what the files before it left.
	MaxBytes int64
	// MaxFiles caps the files one message brings (wecom.media.max_files);
	// the ones past it are not fetched, and the card says so.
	MaxFiles int
	// Key decrypts files whose MediaRef has no AESKey: the bot's
	// EncodingAESKey on the webhook. Nil leaves such files as they came,
	// as the official SDK does when a message has no aeskey.
	Key []byte
}

// Fetch downloads every ref, in order, and returns one Attachment each: the
// plain bytes, or a Problem that says in one line why not. msgID names
// files WeCom gives no name; several get "-2", "-3" … so names stay apart.
// Problems never contain the URL: it is a credential for 5 minutes. Past
// MaxFiles, or once the files so far used up MaxBytes, a ref is not asked
// for at all.
func (f Fetcher) Fetch(ctx context.Context, msgID string, refs []MediaRef) []bot.Attachment {
	f = f.withDefaults()
	out := make([]bot.Attachment, 0, len(refs))
	left := f.MaxBytes
	for i, r := range refs {
		fallback := msgID
		if i > 0 {
			fallback += "-" + strconv.Itoa(i+1)
		}
		var a bot.Attachment
		switch {
		case i >= f.MaxFiles:
			a = bot.Attachment{Kind: r.Kind, Name: MediaName("", fallback, ""),
				Problem: fmt.Sprintf("The %s was not downloaded: a message brings at most %d files.", noun(r.Kind), f.MaxFiles)}
		case left <= 0:
			a = bot.Attachment{Kind: r.Kind, Name: MediaName("", fallback, ""),
				Problem: fmt.Sprintf("The %s was not downloaded: the message's files passed the %s limit together.", noun(r.Kind), sizeText(f.MaxBytes))}
		default:
			var used int64
			a, used = f.fetchOne(ctx, r, fallback, left)
			left -= used
		}
		out = append(out, a)
	}
	return out
}

func (f Fetcher) withDefaults() Fetcher {
	if f.Timeout <= 0 {
		f.Timeout = DefaultMediaTimeout
	}
	if f.MaxBytes <= 0 {
		f.MaxBytes = DefaultMediaMaxBytes
	}
	if f.MaxFiles <= 0 {
		f.MaxFiles = DefaultMediaMaxFiles
	}
	f.Hosts = hostsOr(f.Hosts)
	if f.Client == nil {
		f.Client = f.Hosts.Client(0) // each download has its own deadline
	}
	return f
}

// fetchOne fetches one file of at most max bytes and says how many it
// counts against the message's budget.
func (f Fetcher) fetchOne(ctx context.Context, r MediaRef, fallback string, max int64) (bot.Attachment, int64) {
	a := bot.Attachment{Kind: r.Kind, Name: MediaName("", fallback, "")}
	key := f.Key
	if r.AESKey != "" {
		k, err := MediaKey(r.AESKey)
		if err != nil {
			a.Problem = fmt.Sprintf("The %s could not be decrypted: its key is not valid.", noun(r.Kind))
			return a, 0
		}
		key = k
	}
	body, hdr, err := f.download(ctx, r.URL, max)
	if err != nil {
		a.Problem = f.problem(r.Kind, err, max)
		return a, 0
	}
	used := int64(len(body))
	if key != nil {
		if body, err = DecryptMedia(key, body); err != nil {
			a.Problem = fmt.Sprintf("The %s could not be decrypted.", noun(r.Kind))
			return a, used
		}
	}
	a.Data = body
	a.MIME = mediaType(r.Kind, hdr.Get("Content-Type"), body)
	a.Name = MediaName(hdr.Get("Content-Disposition"), fallback, a.MIME)
	return a, used
}

// errTooLarge is a download that passed MaxBytes; errStatus one that WeCom
// refused.
var (
	errTooLarge = errors.New("larger than the size limit")
	errStatus   = errors.New("refused by WeCom")
)

func (f Fetcher) download(ctx context.Context, rawURL string, max int64) ([]byte, http.Header, error) {
	ctx, cancel := context.WithTimeout(ctx, f.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, nil, errors.New("bad media URL") // the URL itself stays out
	}
	// Checked here too, so a Client of the caller's asks nothing of a host
	// that is not allowed.
	if err := f.Hosts.CheckURL(req.URL); err != nil {
		return nil, nil, err
	}
	resp, err := f.Client.Do(req)
	if err != nil {
		return nil, nil, downloadError(ctx, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, nil, fmt.Errorf("%w: HTTP %d", errStatus, resp.StatusCode)
	}
	if resp.ContentLength > max {
		return nil, nil, errTooLarge
	}
	// One byte past the cap tells "exactly max" from "more"; nothing beyond
	// it is read or kept. A known length is read into one buffer of that
	// size (bytes.MinRead spare, so the last read does not grow it).
	var buf bytes.Buffer
	if resp.ContentLength > 0 {
		buf.Grow(int(resp.ContentLength) + bytes.MinRead)
	}
	if _, err := buf.ReadFrom(io.LimitReader(resp.Body, max+1)); err != nil {
		return nil, nil, downloadError(ctx, err)
	}
	body := buf.Bytes()
	if int64(len(body)) > max {
		return nil, nil, errTooLarge
	}
	return body, resp.Header, nil
}

// downloadError drops the *url.Error's URL: only what went wrong is kept.
func downloadError(ctx context.Context, err error) error {
	if errors.Is(err, ErrHostNotAllowed) {
		return ErrHostNotAllowed // a redirect or a dialed address; the log of the caller has no URL
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return context.DeadlineExceeded
	}
	if errors.Is(err, context.Canceled) {
		return context.Canceled
	}
	return errors.New("connection failed")
}

func (f Fetcher) problem(kind bot.AttachmentKind, err error, max int64) string {
	n := noun(kind)
	switch {
	case errors.Is(err, ErrHostNotAllowed):
		return fmt.Sprintf("The %s could not be fetched: its address is not one wecodex may download from.", n)
	case errors.Is(err, errTooLarge) && max < f.MaxBytes:
		return fmt.Sprintf("The %s was not downloaded: the message's files passed the %s limit together.", n, sizeText(f.MaxBytes))
	case errors.Is(err, errTooLarge):
		return fmt.Sprintf("The %s is larger than the %s limit, so it was not downloaded.", n, sizeText(max))
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Sprintf("The %s could not be downloaded within %s.", n, f.Timeout)
	default:
		return fmt.Sprintf("The %s could not be downloaded (%v).", n, err)
	}
}

// mediaType is the attachment's media type: sniffed from the bytes for an
// image (WeCom labels its encrypted downloads application/octet-stream),
// else the response's, else sniffed.
func mediaType(kind bot.AttachmentKind, header string, body []byte) string {
	sniffed := http.DetectContentType(body)
	if kind == bot.AttachImage {
		return sniffed
	}
	if mt, _, err := mime.ParseMediaType(header); err == nil && mt != "application/octet-stream" {
		return mt
	}
	return sniffed
}

func noun(kind bot.AttachmentKind) string {
	switch kind {
	case bot.AttachImage:
		return "picture"
	case bot.AttachVideo:
		return "video"
	}
	return "file"
}

func sizeText(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return strconv.FormatInt(n>>20, 10) + " MiB"
	}
	return strconv.FormatInt(n, 10) + "-byte"
}
