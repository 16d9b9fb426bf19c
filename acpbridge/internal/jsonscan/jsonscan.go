// Package jsonscan walks JSON objects without decoding them: a protocol reader
// whose lines are almost all one hot kind (a Codex delta, an ACP text chunk)
// reads the few members it needs as raw bytes, without allocating or
// reflecting, and leaves everything else to encoding/json.
//
// The scanner accepts all valid JSON and is not a validator: on malformed
// input it may return members or an error, but it never panics. Keys come
// back raw; a caller comparing them with names encoding/json would match
// case-insensitively or after unescaping checks PlainKey first.
package jsonscan

import (
	"bytes"
	"encoding/json"
	"errors"
	"unicode/utf8"
)

var errBadJSON = errors.New("malformed JSON")

// Fields iterates over the members of one JSON object.
type Fields struct {
	data []byte
	pos  int
	err  error
}

// NewFields starts iterating over obj, which must be a JSON object (leading
// space allowed); otherwise the first Next returns false and Err is set.
func NewFields(obj []byte) Fields {
	f := Fields{data: obj}
	f.skipSpace()
	if f.pos >= len(f.data) || f.data[f.pos] != '{' {
		f.err = errBadJSON
		return f
	}
	f.pos++
	return f
}

// Next returns the next member: its key as raw bytes between the quotes (not
// unescaped: see PlainKey) and its raw value, both slices of obj. ok is false
// at the end of the object or on malformed input (then Err is set).
func (f *Fields) Next() (key, value []byte, ok bool) {
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

// Err is errBadJSON once the object turned out malformed, else nil.
func (f *Fields) Err() error { return f.err }

func (f *Fields) skipSpace() {
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

// RawString returns the contents of a JSON string value without its quotes,
// and whether it contains escapes (then String decodes it). A non-string
// value returns ok false.
func RawString(v []byte) (s []byte, escaped, ok bool) {
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

// String decodes a JSON string value the way encoding/json does (escapes,
// and invalid UTF-8 replaced); ok is false for anything else.
func String(v []byte) (string, bool) {
	s, escaped, ok := RawString(v)
	if !ok {
		return "", false
	}
	if !escaped && utf8.Valid(s) {
		return string(s), true
	}
	var out string
	if json.Unmarshal(v, &out) != nil {
		return "", false
	}
	return out, true
}

// PlainKey reports whether key can be compared byte for byte with the names
// the caller looks for: encoding/json unescapes keys and matches struct
// fields case-insensitively, so a key with an escape, or one that differs
// from a known name only in case, must take that decoder instead.
func PlainKey(key []byte, known ...string) bool {
	for _, k := range known {
		if string(key) == k {
			return true // the common case, and a known name has no escape
		}
	}
	if bytes.IndexByte(key, '\\') >= 0 {
		return false
	}
	for _, k := range known {
		if bytes.EqualFold(key, []byte(k)) {
			return false
		}
	}
	return true
}

// IsNull reports whether the raw value v is JSON null.
func IsNull(v []byte) bool { return string(v) == "null" }
