package wecomtest

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"time"
)

// WeCom's self-built app API rules the fake enforces (WECOM-PROTOCOL.md §F.2,
// §F.4).
const (
	// AppSendsPerMinute and AppSendsPerHour are message/send's budget per
	// member per app; WeCom drops the excess silently (errcode 0).
	AppSendsPerMinute = 30
	AppSendsPerHour   = 1000
	// AppMarkdownMaxBytes caps markdown.content.
	AppMarkdownMaxBytes = 2048
	// AppTokenExpiresIn is gettoken's expires_in.
	AppTokenExpiresIn = 7200
)

// WeCom's errcodes the fake answers with.
const (
	ErrcodeInvalidSecret       = 40001 // gettoken: corpsecret wrong
	ErrcodeInvalidCorpID       = 40013
	ErrcodeInvalidToken        = 40014 // access_token unknown
	ErrcodeExpiredToken        = 42001 // access_token expired
	ErrcodeInvalidAgentID      = 40056 // agentid missing, wrong or not a number
	ErrcodeInvalidMediaID      = 40007
	ErrcodeContentTooLong      = 45002
	ErrcodeInvalidParameter    = 40058 // a required field missing or of the wrong type
	ErrcodeAllInvalid          = 81013 // no valid receiver
	ErrcodeInvalidResponseCode = 60140 // update_template_card: response_code unknown or used (DOC 90313: 无效的response_code)
)

// AppAPIOptions describe the app the fake serves.
type AppAPIOptions struct {
	CorpID  string
	Secret  string
	AgentID int64
	// Now is the clock of the rate limit; nil means time.Now. A test that
	// paces sends on an injected clock gives the fake the same one.
	Now func() time.Time
}

// AppAPI is a fake of qyapi.weixin.qq.com for one self-built app: gettoken,
// message/send (markdown, text, template_card), message/update_template_card
// and media/get, with WeCom's error codes, token expiry and the per-member
// rate limit. Point silenceper/wechat at it with util.SetURIModifier (the
// app channel's Options.APIBase does).
type AppAPI struct {
	opts AppAPIOptions
	srv  *httptest.Server

	mu       sync.Mutex
	changed  chan struct{} // closed and replaced on every record
	records  []AppRecord
	tokens   map[string]bool // token → still valid
	fetches  int
	hold     chan struct{} // non-nil: gettoken waits for it to close
	holding  chan struct{} // closed when a gettoken waits on hold
	codes    map[string]bool
	media    map[string]AppMedia
	uploads  map[string]AppMedia    // by media_id, from media/upload
	sends    map[string][]time.Time // touser → accepted send times
	taskIDs  map[string]bool
	sequence int
}

// AppMedia is a file media/get serves.
type AppMedia struct {
	Name, ContentType string
	Data              []byte
}

// AppRecord is one API call the fake answered.
type AppRecord struct {
	Seq     int
	API     string // gettoken, message/send, message/update_template_card, media/get
	Token   string
	Errcode int
	// Dropped: message/send answered ok and, over the rate limit, delivered
	// nothing (what WeCom does).
	Dropped bool
	At      time.Time
	ToUser  string
	MsgType string
	// Content is a markdown or text message's content, or the media_id a
	// media message sends or media/upload issued.
	Content string
	// Card is the template_card of a send or an update.
	Card json.RawMessage
	// ResponseCode is the code a card send returned, or the one an update
	// used.
	ResponseCode string
	Body         json.RawMessage
}

// NewAppAPI starts the fake; Close stops it.
func NewAppAPI(o AppAPIOptions) *AppAPI {
	if o.Now == nil {
		o.Now = time.Now
	}
	a := &AppAPI{opts: o, changed: make(chan struct{}), tokens: map[string]bool{}, codes: map[string]bool{},
		media: map[string]AppMedia{}, uploads: map[string]AppMedia{}, sends: map[string][]time.Time{}, taskIDs: map[string]bool{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /cgi-bin/gettoken", a.getToken)
	mux.HandleFunc("POST /cgi-bin/message/send", a.send)
	mux.HandleFunc("POST /cgi-bin/message/update_template_card", a.updateCard)
	mux.HandleFunc("GET /cgi-bin/media/get", a.mediaGet)
	mux.HandleFunc("POST /cgi-bin/media/upload", a.mediaUpload)
	a.srv = httptest.NewServer(mux)
	return a
}

// URL is the fake's base URL, in place of https://qyapi.weixin.qq.com.
func (a *AppAPI) URL() string { return a.srv.URL }

// Close stops the fake.
func (a *AppAPI) Close() { a.srv.Close() }

// ExpireTokens makes every token handed out so far expired (42001), as WeCom
// may do before expires_in.
func (a *AppAPI) ExpireTokens() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for t := range a.tokens {
		a.tokens[t] = false
	}
}

// HoldTokens makes gettoken wait until the returned release is called;
// Holding is closed once a gettoken waits.
func (a *AppAPI) HoldTokens() (holding <-chan struct{}, release func()) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.hold, a.holding = make(chan struct{}), make(chan struct{})
	hold := a.hold
	var once sync.Once
	return a.holding, func() { once.Do(func() { close(hold) }) }
}

// Fetches is how many tokens gettoken handed out.
func (a *AppAPI) Fetches() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.fetches
}

// AddMedia makes media/get serve m under id.
func (a *AppAPI) AddMedia(id string, m AppMedia) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.media[id] = m
}

// Records is every call so far, in order.
func (a *AppAPI) Records() []AppRecord {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]AppRecord(nil), a.records...)
}

// Delivered is the messages of msgtype (any when "") delivered to user:
// accepted and not dropped.
func (a *AppAPI) Delivered(user, msgtype string) []AppRecord {
	var out []AppRecord
	for _, r := range a.Records() {
		if r.API == "message/send" && r.Errcode == 0 && !r.Dropped && r.ToUser == user && (msgtype == "" || r.MsgType == msgtype) {
			out = append(out, r)
		}
	}
	return out
}

// Wait returns the first record that satisfies ok, waiting for it until ctx
// ends.
func (a *AppAPI) Wait(ctx context.Context, ok func(AppRecord) bool) (AppRecord, error) {
	for seen := 0; ; {
		a.mu.Lock()
		recs, changed := a.records[seen:], a.changed
		a.mu.Unlock()
		for _, r := range recs {
			if ok(r) {
				return r, nil
			}
		}
		seen += len(recs)
		select {
		case <-changed:
		case <-ctx.Done():
			return AppRecord{}, ctx.Err()
		}
	}
}

// record appends r under a.mu.
func (a *AppAPI) record(r AppRecord) {
	a.sequence++
	r.Seq = a.sequence
	r.At = a.opts.Now()
	a.records = append(a.records, r)
	close(a.changed)
	a.changed = make(chan struct{})
}

func writeErrcode(w http.ResponseWriter, code int, msg string, extra map[string]any) {
	body := map[string]any{"errcode": code, "errmsg": msg}
	for k, v := range extra {
		body[k] = v
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	_ = json.NewEncoder(w).Encode(body)
}

func (a *AppAPI) getToken(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	hold, holding := a.hold, a.holding
	if holding != nil {
		close(holding)
		a.holding = nil
	}
	a.mu.Unlock()
	if hold != nil {
		select {
		case <-hold:
		case <-r.Context().Done():
			return
		}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	q := r.URL.Query()
	switch {
	case q.Get("corpid") != a.opts.CorpID:
		a.record(AppRecord{API: "gettoken", Errcode: ErrcodeInvalidCorpID})
		writeErrcode(w, ErrcodeInvalidCorpID, "invalid corpid", nil)
		return
	case q.Get("corpsecret") != a.opts.Secret:
		a.record(AppRecord{API: "gettoken", Errcode: ErrcodeInvalidSecret})
		writeErrcode(w, ErrcodeInvalidSecret, "invalid credential", nil)
		return
	}
	a.fetches++
	tok := "AT" + strconv.Itoa(a.fetches) + "x" + hex.EncodeToString(appRandom(12))
	a.tokens[tok] = true
	a.record(AppRecord{API: "gettoken", Token: tok})
	writeErrcode(w, 0, "ok", map[string]any{"access_token": tok, "expires_in": AppTokenExpiresIn})
}

// checkToken answers 40014/42001 for a bad token; ok says whether it was good.
func (a *AppAPI) checkToken(w http.ResponseWriter, r *http.Request, api string) (string, bool) {
	tok := r.URL.Query().Get("access_token")
	valid, known := a.tokens[tok]
	switch {
	case !known:
		a.record(AppRecord{API: api, Token: tok, Errcode: ErrcodeInvalidToken})
		writeErrcode(w, ErrcodeInvalidToken, "invalid access_token", nil)
		return tok, false
	case !valid:
		a.record(AppRecord{API: api, Token: tok, Errcode: ErrcodeExpiredToken})
		writeErrcode(w, ErrcodeExpiredToken, "access_token expired", nil)
		return tok, false
	}
	return tok, true
}
