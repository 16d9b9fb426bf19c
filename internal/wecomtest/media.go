package wecomtest

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// MediaLinkLife is how long WeCom's media links work: 5 minutes from the
// message (WECOM-PROTOCOL.md §C, §G.1).
const MediaLinkLife = 5 * time.Minute

// MediaServer plays WeCom's media download server: each file is served
// encrypted exactly as WeCom does (AES-256-CBC, IV = key[:16], PKCS#7 padded
// to 32 bytes) with its name in Content-Disposition (filename*=UTF-8”…), on
// a link that stops working MediaLinkLife after it was made. It also serves
// a link that never answers and one that never ends, for the bot's timeout
// and size cap. It is safe for concurrent use.
type MediaServer struct {
	http *httptest.Server
	now  func() time.Time

	mu    sync.Mutex
	files map[string]mediaFile
	gets  map[string]int
	hung  chan struct{} // closed by Close: releases the links that never answer
}

// MediaFile is a file to serve.
type MediaFile struct {
	// Name goes in Content-Disposition; "" sends none, as for some images.
	Name string
	// ContentType is the response's type; "" means application/octet-stream,
	// what WeCom labels its encrypted downloads.
	ContentType string
	Data        []byte
	// Key encrypts it: the bot's EncodingAESKey decoded (webhook) or nil for
	// a fresh per-file key (long connection), returned in MediaLink.AESKey.
	Key []byte
	// BadPadding corrupts the last pad byte after encrypting, so the file
	// cannot be decrypted.
	BadPadding bool
}

// MediaLink is what a callback carries for one file.
type MediaLink struct {
	URL string
	// AESKey is the file's key, base64 without its "=" padding as WeCom
	// often sends it; "" when the file was encrypted with MediaFile.Key.
	AESKey string
}

type mediaFile struct {
	body        []byte // encrypted
	name, ctype string
	made        time.Time
	hang        bool
	endless     bool
	held        chan struct{} // answered once closed
}

// NewMediaServer starts a media server; now is its clock (nil: time.Now),
// which a test moves to expire links. Close it when done.
func NewMediaServer(now func() time.Time) *MediaServer {
	if now == nil {
		now = time.Now
	}
	s := &MediaServer{now: now, files: map[string]mediaFile{}, gets: map[string]int{}, hung: make(chan struct{})}
	s.http = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// Close stops the server, releasing any request held on a hanging link.
func (s *MediaServer) Close() {
	s.mu.Lock()
	select {
	case <-s.hung:
	default:
		close(s.hung)
	}
	s.mu.Unlock()
	s.http.Close()
}

// Add serves f encrypted and returns its link.
func (s *MediaServer) Add(f MediaFile) (MediaLink, error) {
	key, own := f.Key, f.Key == nil
	if own {
		key = make([]byte, 32)
		_, _ = rand.Read(key)
	}
	body, err := EncryptMedia(key, f.Data)
	if err != nil {
		return MediaLink{}, err
	}
	if f.BadPadding {
		body = corruptPadding(key, body)
	}
	ctype := f.ContentType
	if ctype == "" {
		ctype = "application/octet-stream"
	}
	link := MediaLink{URL: s.put(mediaFile{body: body, name: f.Name, ctype: ctype})}
	if own {
		link.AESKey = strings.TrimRight(base64.StdEncoding.EncodeToString(key), "=")
	}
	return link, nil
}

// AddHeld serves f like Add, but answers no request until release is
// called: a test holds a download to act while it runs.
func (s *MediaServer) AddHeld(f MediaFile) (link MediaLink, release func(), err error) {
	link, err = s.Add(f)
	if err != nil {
		return MediaLink{}, nil, err
	}
	gate := make(chan struct{})
	p := pathOf(link.URL)
	s.mu.Lock()
	mf := s.files[p]
	mf.held = gate
	s.files[p] = mf
	s.mu.Unlock()
	var once sync.Once
	return link, func() { once.Do(func() { close(gate) }) }, nil
}

// AddHanging returns a link that accepts the request and never answers it
// (until Close): a bot's download timeout must end it.
func (s *MediaServer) AddHanging() MediaLink {
	return MediaLink{URL: s.put(mediaFile{hang: true})}
}

// AddEndless returns a link whose body never ends and has no length: a bot
// must stop reading at its size cap.
func (s *MediaServer) AddEndless() MediaLink {
	return MediaLink{URL: s.put(mediaFile{endless: true})}
}

// Gets is how many times link was requested.
func (s *MediaServer) Gets(link MediaLink) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gets[pathOf(link.URL)]
}

func (s *MediaServer) put(f mediaFile) string {
	id := randomHex(16)
	f.made = s.now()
	s.mu.Lock()
	s.files["/cgi-bin/media/"+id] = f
	s.mu.Unlock()
	// The query looks like WeCom's signed links; only the path matters here.
	return s.http.URL + "/cgi-bin/media/" + id + "?sign=" + randomHex(8)
}

func pathOf(link string) string {
	u, err := url.Parse(link)
	if err != nil {
		return ""
	}
	return u.Path
}

func (s *MediaServer) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	f, ok := s.files[r.URL.Path]
	s.gets[r.URL.Path]++
	hung := s.hung
	s.mu.Unlock()
	if ok && f.held != nil {
		select {
		case <-f.held:
		case <-hung:
			return
		case <-r.Context().Done():
			return
		}
	}
	switch {
	case !ok || r.Method != http.MethodGet:
		http.Error(w, `{"errcode":40007,"errmsg":"invalid media"}`, http.StatusNotFound)
	case s.now().Sub(f.made) > MediaLinkLife:
		http.Error(w, `{"errcode":42001,"errmsg":"link expired"}`, http.StatusForbidden)
	case f.hang:
		select {
		case <-r.Context().Done():
		case <-hung:
		}
	case f.endless:
		w.Header().Set("Content-Type", "application/octet-stream")
		chunk := bytes.Repeat([]byte{0xA5}, 32<<10)
		for r.Context().Err() == nil {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	default:
		w.Header().Set("Content-Type", f.ctype)
		if f.name != "" {
			w.Header().Set("Content-Disposition", "attachment; filename*=UTF-8''"+rfc5987(f.name))
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(f.body)))
		_, _ = w.Write(f.body)
	}
}

// EncryptMedia encrypts data as WeCom encrypts a media file: AES-256-CBC,
// IV = key[:16], PKCS#7 padding to a multiple of 32 bytes. It is written
// apart from bot/wecom's decryption so each checks the other.
func EncryptMedia(key, data []byte) ([]byte, error) {
	if len(key) != 32 {
		return nil, fmt.Errorf("wecomtest: media key has %d bytes, want 32", len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	pad := 32 - len(data)%32
	pt := append(append([]byte(nil), data...), bytes.Repeat([]byte{byte(pad)}, pad)...)
	ct := make([]byte, len(pt))
	cipher.NewCBCEncrypter(block, key[:16]).CryptBlocks(ct, pt)
	return ct, nil
}

// corruptPadding re-encrypts ct's last block so its final pad byte is wrong
// (one more than the others), which a decrypter checking every pad byte
// must refuse.
func corruptPadding(key, ct []byte) []byte {
	block, _ := aes.NewCipher(key)
	pt := make([]byte, len(ct))
	cipher.NewCBCDecrypter(block, key[:16]).CryptBlocks(pt, ct)
	if last := pt[len(pt)-1]; last == 32 {
		pt[len(pt)-2] = 0 // a whole pad block: break a byte before the last
	} else {
		pt[len(pt)-1] = last + 1 // now unlike the pad bytes before it
	}
	out := make([]byte, len(pt))
	cipher.NewCBCEncrypter(block, key[:16]).CryptBlocks(out, pt)
	return out
}

// ErrNoMedia says a media message was built without its link.
var ErrNoMedia = errors.New("wecomtest: a media message needs its Link")

// rfc5987 percent-encodes s as an RFC 5987 ext-value's value-chars: every
// byte but attr-char, as WeCom's downloads name their files.
func rfc5987(s string) string {
	const attr = "!#$&+-.^_`|~"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x80 && (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte(attr, c) >= 0) {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}
