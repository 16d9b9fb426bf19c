package external

import (
	acp "github.com/coder/acp-go-sdk"
	"github.com/wecodex/wecodex/acpbridge"
	"github.com/wecodex/wecodex/acpbridge/internal/jsonscan"
)

// inboundUpdate is one session/update from an external agent, decoded once
// and routed by the phase rule, as the client delivers it.
type inboundUpdate struct {
	session  acp.SessionId
	update   acp.SessionUpdate // commentary already made a thought
	notice   *acpbridge.Notice // set instead of update for a wecodex notice
	unphased bool              // an agent_message_chunk that carried no phase
}

// routeUpdate routes an update decoded with the SDK's types.
func routeUpdate(n acp.SessionNotification) inboundUpdate {
	in := inboundUpdate{session: n.SessionId}
	if notice, ok := acpbridge.NoticeFromUpdate(n.Update); ok {
		in.notice = &notice
		return in
	}
	if c := n.Update.AgentMessageChunk; c != nil {
		_, phased := acpbridge.PhaseFromMeta(c.Meta)
		in.unphased = !phased
	}
	in.update = acpbridge.RouteByMetaPhase(n.Update)
	return in
}

// An external agent's stdout is almost all session/update text chunks, and
// decoding each with encoding/json through the SDK's types (a map per union,
// then the variant, then the content union, then _meta as map[string]any)
// cost most of the reader's CPU. The reader walks the hot chunks with
// internal/jsonscan instead and hands everything else to encoding/json.

// scanEnvelope reads a JSON-RPC line's method and params. method is "" for a
// response or a request (the SDK's), and ok is false when the scanner cannot
// be sure of the line, which encoding/json then decides.
func scanEnvelope(line []byte) (method string, params []byte, ok bool) {
	f := jsonscan.NewFields(line)
	var rawMethod []byte
	hasID := false
	for key, v, more := f.Next(); more; key, v, more = f.Next() {
		switch {
		case !jsonscan.PlainKey(key, "id", "method", "params"):
			return "", nil, false
		case string(key) == "id":
			hasID = !jsonscan.IsNull(v)
		case string(key) == "method":
			rawMethod = v
		case string(key) == "params":
			params = v
		}
	}
	if f.Err() != nil {
		return "", nil, false
	}
	if hasID || rawMethod == nil {
		return "", nil, true
	}
	method, ok = jsonscan.String(rawMethod)
	return method, params, ok
}

// scanUpdate reads a session/update's params when they hold a text chunk of
// agent message or thought, the bulk of every turn; ok is false for anything
// else, which takes the SDK's decode. The chunk is delivered without the
// agent's _meta: its phase (and a wecodex notice) is all the card reads.
func scanUpdate(params []byte, seen *seenStrings) (inboundUpdate, bool) {
	var in inboundUpdate
	var update []byte
	f := jsonscan.NewFields(params)
	for key, v, more := f.Next(); more; key, v, more = f.Next() {
		switch {
		case !jsonscan.PlainKey(key, "sessionId", "update"):
			return in, false
		case string(key) == "sessionId":
			s, ok := seen.session.of(v)
			if !ok {
				return in, false
			}
			in.session = acp.SessionId(s)
		case string(key) == "update":
			update = v
		}
	}
	if f.Err() != nil || update == nil {
		return in, false
	}
	c, ok := scanChunk(update, seen)
	if !ok {
		return in, false
	}
	if c.thought {
		if c.hasNotice {
			in.notice = &acpbridge.Notice{Level: acpbridge.NoticeLevel(c.notice), Text: c.text}
			return in, true
		}
		in.update = acpbridge.AgentText(acpbridge.PhaseCommentary, c.messageID, c.text)
		return in, true
	}
	in.unphased = !c.hasPhase
	in.update = acpbridge.AgentText(acpbridge.Phase(c.phase), c.messageID, c.text)
	return in, true
}

// seenStrings keeps the last session id and message id the reader decoded:
// a turn's thousands of chunks repeat them, and reusing the string saves an
// allocation per chunk. Only the reader's goroutine uses it.
type seenStrings struct {
	session, message lastString
}

type lastString struct {
	raw []byte
	s   string
}

// of decodes the JSON string v, reusing the last result when v is the same.
func (l *lastString) of(v []byte) (string, bool) {
	if l.raw != nil && string(v) == string(l.raw) {
		return l.s, true
	}
	s, ok := jsonscan.String(v)
	if !ok {
		return "", false
	}
	l.raw = append(l.raw[:0], v...)
	l.s = s
	return s, true
}

// wireTextChunk is what scanChunk reads from an agent_message_chunk or
// agent_thought_chunk with text content.
type wireTextChunk struct {
	thought   bool
	messageID string
	text      string
	phase     string // _meta.codex.phase, else _meta.jetbrains.air.phase
	hasPhase  bool
	notice    string // _meta.wecodex.notice
	hasNotice bool
}

func scanChunk(update []byte, seen *seenStrings) (wireTextChunk, bool) {
	var c wireTextChunk
	var kind, content, meta []byte
	f := jsonscan.NewFields(update)
	for key, v, more := f.Next(); more; key, v, more = f.Next() {
		switch {
		case !jsonscan.PlainKey(key, "sessionUpdate", "messageId", "content", "_meta"):
			return c, false
		case string(key) == "sessionUpdate":
			kind = v
		case string(key) == "messageId":
			c.messageID = ""
			if !jsonscan.IsNull(v) {
				id, ok := seen.message.of(v)
				if !ok {
					return c, false
				}
				c.messageID = id
			}
		case string(key) == "content":
			content = v
		case string(key) == "_meta":
			meta = v
		}
	}
	if f.Err() != nil {
		return c, false
	}
	switch string(kind) {
	case `"agent_message_chunk"`:
	case `"agent_thought_chunk"`:
		c.thought = true
	default:
		return c, false
	}
	text, ok := scanTextContent(content)
	if !ok {
		return c, false
	}
	c.text = text
	if meta != nil && !jsonscan.IsNull(meta) {
		if !scanMeta(meta, &c) {
			return c, false
		}
	}
	return c, true
}

// scanTextContent reads {"type":"text","text":"..."}; content with
// annotations or its own _meta takes the SDK's decode, which keeps them.
func scanTextContent(content []byte) (string, bool) {
	if content == nil {
		return "", false
	}
	var typ, text []byte
	f := jsonscan.NewFields(content)
	for key, v, more := f.Next(); more; key, v, more = f.Next() {
		switch {
		case !jsonscan.PlainKey(key, "type", "text", "annotations", "_meta"):
			return "", false
		case string(key) == "type":
			typ = v
		case string(key) == "text":
			text = v
		case string(key) == "annotations" || string(key) == "_meta":
			if !jsonscan.IsNull(v) {
				return "", false
			}
		}
	}
	if f.Err() != nil || string(typ) != `"text"` || text == nil {
		return "", false
	}
	return jsonscan.String(text)
}

// scanMeta reads the phase and notice keys of a chunk's _meta into c with the
// same precedence as PhaseFromMeta and NoticeFromUpdate; false when the
// scanner cannot be sure, and the SDK's decode then reads it.
func scanMeta(meta []byte, c *wireTextChunk) bool {
	var codex, jetbrains, wecodex []byte
	f := jsonscan.NewFields(meta)
	for key, v, more := f.Next(); more; key, v, more = f.Next() {
		if !jsonscan.PlainKey(key) {
			return false
		}
		switch string(key) {
		case "codex":
			codex = v
		case "jetbrains":
			jetbrains = v
		case acpbridge.NoticeMetaKey:
			wecodex = v
		}
	}
	if f.Err() != nil {
		return false
	}
	var ok1, ok2, ok3 bool
	c.phase, c.hasPhase, ok1 = scanStringAt(codex, "phase")
	if !c.hasPhase {
		c.phase, c.hasPhase, ok2 = scanStringAt(jetbrains, "air", "phase")
	} else {
		_, _, ok2 = scanStringAt(jetbrains, "air", "phase")
	}
	c.notice, c.hasNotice, ok3 = scanStringAt(wecodex, "notice")
	return ok1 && ok2 && ok3
}

// knownPhases are returned without allocating a string per chunk.
var knownPhases = []string{string(acpbridge.PhaseCommentary), string(acpbridge.PhaseFinalAnswer), string(acpbridge.PhasePartialAnswer)}

// scanStringAt walks nested objects along keys, like stringAt: found is false
// when the path or a string at its end is missing; ok is false when unsure.
func scanStringAt(v []byte, keys ...string) (s string, found, ok bool) {
	for _, k := range keys {
		if v == nil || v[0] != '{' {
			return "", false, true
		}
		var next []byte
		f := jsonscan.NewFields(v)
		for key, val, more := f.Next(); more; key, val, more = f.Next() {
			if !jsonscan.PlainKey(key) {
				return "", false, false
			}
			if string(key) == k {
				next = val
			}
		}
		if f.Err() != nil {
			return "", false, false
		}
		v = next
	}
	if v == nil || v[0] != '"' {
		return "", false, true
	}
	for _, p := range knownPhases {
		if len(v) == len(p)+2 && string(v[1:len(v)-1]) == p {
			return p, true, true
		}
	}
	s, ok = jsonscan.String(v)
	return s, ok, ok
}
