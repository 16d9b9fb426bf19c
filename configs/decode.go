package configs

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"
)

// durationHook parses "30m" into a time.Duration and refuses a bare number,
// which would otherwise silently mean nanoseconds.
func durationHook(from, to reflect.Type, data any) (any, error) {
	if to != reflect.TypeOf(time.Duration(0)) {
		return data, nil
	}
	switch from.Kind() {
	case reflect.String:
		return parseDuration(data.(string))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		if from == to { // a default, already a Duration
			return data, nil
		}
		return nil, errBareNumberDuration
	}
	return data, nil
}

// sliceHook splits a comma-separated string (how lists arrive from the
// environment) into trimmed, non-empty items.
func sliceHook(from, to reflect.Type, data any) (any, error) {
	if from.Kind() != reflect.String || to.Kind() != reflect.Slice {
		return data, nil
	}
	var out []string
	for _, s := range strings.Split(data.(string), ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out, nil
}

// stringMapHook turns a YAML map (nested maps flattened into dotted keys) or a
// comma-separated KEY=VALUE string from the environment into map[string]string.
func stringMapHook(from, to reflect.Type, data any) (any, error) {
	if to != reflect.TypeOf(map[string]string(nil)) {
		return data, nil
	}
	switch d := data.(type) {
	case string:
		out := map[string]string{}
		for _, pair := range strings.Split(d, ",") {
			if pair = strings.TrimSpace(pair); pair == "" {
				continue
			}
			k, v, ok := strings.Cut(pair, "=")
			if !ok || strings.TrimSpace(k) == "" {
				return nil, fmt.Errorf("%q is not KEY=VALUE", pair)
			}
			out[strings.TrimSpace(k)] = v
		}
		return out, nil
	case map[string]any:
		return flatten(d), nil
	}
	return data, nil
}

// flatten turns {a: {b: 1}, c: x} into {"a.b": "1", "c": "x"}: the shape of
// Codex's `-c key=value` overrides.
func flatten(m map[string]any) map[string]string {
	out := map[string]string{}
	var walk func(prefix string, m map[string]any)
	walk = func(prefix string, m map[string]any) {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			switch v := m[k].(type) {
			case map[string]any:
				walk(prefix+k+".", v)
			default:
				out[prefix+k] = scalarText(v)
			}
		}
	}
	walk("", m)
	return out
}

// scalarText renders a YAML value as the text Codex parses as TOML: strings as
// they are, lists as JSON arrays (also valid TOML), everything else with fmt.
func scalarText(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case []any:
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Sprint(v)
		}
		return string(b)
	default:
		return fmt.Sprint(v)
	}
}

var errBareNumberDuration = errors.New("needs a unit, like 500ms, 30s or 30m")
