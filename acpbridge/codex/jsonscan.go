package codex

import (
	"bytes"
	"encoding/json"
	"errors"
)

// The read loop sees every line Codex writes, and almost all of them are
// deltas. Decoding each into a struct with encoding/json costs several
// allocations and a reflection walk per line, so the envelope and the hot
// delta notifications are read with this small scanner instead: it walks the
// members of one JSON object and hands back raw value bytes without copying.
// Everything else is decoded with encoding/json from the raw params.

var errBadJSON = errors.New("malformed JSON")

// fields iterates over the members of a JSON object.
type fields struct {
	data []byte
	pos  int
	err  error
}

func newFields(obj []byte) fields {
	f := fields{data: obj}
	f.skipSpace()
	if f.pos >= len(f.data) || f.data[f.pos] != '{' {
		f.err = errBadJSON
		return f
	}
	f.pos++
	return f
}

// next returns the next member: its key as raw bytes between the quotes (keys
// Codex sends never need unescaping) and its raw value. ok is false at the end
// of the object or on malformed input (then err is set).
func (f *fields) next() (key, value []byte, ok bool) {
	if f.err != nil {
		return nil, nil, false
	}
	f.skipSpace()
	if f.pos < len(f.data) && f.data[f.pos] == ',' {
		f.pos++
		f.skipSpace()
	}
	if f.pos >= len(f.data) {
		f.err = errBadJSON
		return nil, nil, false
	}
	if f.data[f.pos] == '}' {
		f.pos++
		return nil, nil, false
	}
	if f.data[f.pos] != '"' {
		f.err = errBadJSON
		return nil, nil, false
	}
	end, ok := skipString(f.data, f.pos)
	if !ok {
		f.err = errBadJSON
		return nil, nil, false
	}
	key = f.data[f.pos+1 : end-1]
	f.pos = end
	f.skipSpace()
	if f.pos >= len(f.data) || f.data[f.pos] != ':' {
		f.err = errBadJSON
		return nil, nil, false
	}
	f.pos++
	f.skipSpace()
	start := f.pos
	end, ok = skipValue(f.data, f.pos)
	if !ok {
		f.err = errBadJSON
		return nil, nil, false
	}
	f.pos = end
	return key, f.data[start:end], true
}

func (f *fields) skipSpace() {
	for f.pos < len(f.data) {
		switch f.data[f.pos] {
		case ' ', '\t', '\r', '\n':
			f.pos++
		default:
			return
		}
	}
}

// skipString returns the index just past the string starting at data[i] == '"'.
// It jumps from quote to quote (bytes.IndexByte is vectorized) and counts the
// backslashes before each to tell an escaped quote from the closing one.
func skipString(data []byte, i int) (int, bool) {
	j := i + 1
	for {
		k := bytes.IndexByte(data[j:], '"')
		if k < 0 {
			return 0, false
		}
		q := j + k
		backslashes := 0
		for p := q - 1; p > i && data[p] == '\\'; p-- {
			backslashes++
		}
		if backslashes%2 == 0 {
			return q + 1, true
		}
		j = q + 1
	}
}

// skipValue returns the index just past the JSON value starting at data[i].
func skipValue(data []byte, i int) (int, bool) {
	if i >= len(data) {
		return 0, false
	}
	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(data); j++ {
			switch data[j] {
			case '"':
				end, ok := skipString(data, j)
				if !ok {
					return 0, false
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, true
				}
			}
		}
		return 0, false
	default: // number, true, false, null
		j := i
		for j < len(data) {
			switch data[j] {
			case ',', '}', ']', ' ', '\t', '\r', '\n':
				return j, j > i
			}
			j++
		}
		return j, j > i
	}
}

// rawString returns the contents of a JSON string value without its quotes,
// and whether it contains escapes (then it must be decoded with
// decodeString). A non-string value returns ok false.
func rawString(v []byte) (s []byte, escaped, ok bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return nil, false, false
	}
	s = v[1 : len(v)-1]
	for _, c := range s {
		if c == '\\' {
			return s, true, true
		}
	}
	return s, false, true
}

// stringValue decodes a JSON string value; "" for anything else (null too).
func stringValue(v []byte) string {
	s, escaped, ok := rawString(v)
	if !ok {
		return ""
	}
	if !escaped {
		return string(s)
	}
	var out string
	if json.Unmarshal(v, &out) != nil {
		return ""
	}
	return out
}

// parseID reads a JSON-RPC id we issued (a non-negative integer).
func parseID(v []byte) (int64, bool) {
	if len(v) == 0 || len(v) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}
