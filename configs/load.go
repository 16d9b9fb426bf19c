package configs

import (
	"bytes"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"

	"github.com/go-viper/mapstructure/v2"
	"github.com/spf13/viper"
	"go.yaml.in/yaml/v3"
)

// EnvPrefix starts the environment variable of every key: WECODEX_ and the key
// upper-cased with dots as underscores (redis.addr is WECODEX_REDIS_ADDR).
const EnvPrefix = "WECODEX_"

// EnvVar returns the environment variable that overrides key.
func EnvVar(key string) string {
	return EnvPrefix + strings.ToUpper(strings.ReplaceAll(key, ".", "_"))
}

// Warning is something in a config file that does not stop wecodex but is
// probably a mistake, such as a misspelt key.
type Warning struct {
	Key     string // the full key, as spelt in the file
	Message string
}

func (w Warning) String() string { return w.Key + ": " + w.Message }

// Load reads the YAML file at path (no file when path is empty), applies the
// defaults and the WECODEX_* environment overrides, and returns the result
// without validating it (see Validate). Keys the file has but wecodex does not
// know come back as warnings.
//
// In the environment a list is comma-separated (WECODEX_ACCESS_ALLOW_USERS=
// "alice,bob") and a map is comma-separated KEY=VALUE pairs. An empty variable
// counts as unset.
func Load(path string) (*Config, []Warning, error) {
	keys := Keys()
	v := viper.New()
	def := reflect.ValueOf(Default()).Elem()
	for _, k := range keys {
		if err := v.BindEnv(k.Name, EnvVar(k.Name)); err != nil {
			return nil, nil, fmt.Errorf("bind %s to the environment: %w", k.Name, err)
		}
		if d := def.FieldByIndex(k.index); !d.IsZero() {
			v.SetDefault(k.Name, d.Interface())
		}
	}

	var raw map[string]any
	if path != "" {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, nil, fmt.Errorf("read config: %w", err)
		}
		// Parsed twice: viper folds keys to lower case, which is right for our
		// keys but wrong for the keys of agent.acp.env (environment variable
		// names) and unhelpful in warnings, so the raw tree is kept too.
		if err := yaml.Unmarshal(data, &raw); err != nil {
			return nil, nil, fmt.Errorf("parse config %s: %w", path, err)
		}
		v.SetConfigType("yaml")
		if err := v.ReadConfig(bytes.NewReader(data)); err != nil {
			return nil, nil, fmt.Errorf("parse config %s: %w", path, err)
		}
	}

	cfg := &Config{}
	hook := mapstructure.ComposeDecodeHookFunc(durationHook, sliceHook, stringMapHook)
	if err := v.Unmarshal(cfg, viper.DecodeHook(hook)); err != nil {
		return nil, nil, fmt.Errorf("config %s: %w", describe(path), err)
	}
	if err := restoreMapCase(cfg, raw, keys); err != nil {
		return nil, nil, fmt.Errorf("config %s: %w", describe(path), err)
	}
	// An empty list or map in the file means the same as none: one zero value.
	for _, k := range keys {
		f := reflect.ValueOf(cfg).Elem().FieldByIndex(k.index)
		if (f.Kind() == reflect.Slice || f.Kind() == reflect.Map) && f.Len() == 0 {
			f.SetZero()
		}
	}
	return cfg, unknownKeys(raw, keys), nil
}

func describe(path string) string {
	if path == "" {
		return "(environment and defaults)"
	}
	return path
}

// Key is one configuration key.
type Key struct {
	Name  string // full dotted key, e.g. wecom.aibot.token
	IsMap bool   // its value is a map whose own keys are free-form
	index []int
}

// Keys lists every key wecodex knows, derived from Config's mapstructure tags
// so that the list, the env bindings and the struct can never disagree.
func Keys() []Key {
	var out []Key
	var walk func(t reflect.Type, prefix string, index []int)
	walk = func(t reflect.Type, prefix string, index []int) {
		for i := range t.NumField() {
			f := t.Field(i)
			name := prefix + f.Tag.Get("mapstructure")
			idx := append(append([]int(nil), index...), i)
			if f.Type.Kind() == reflect.Struct {
				walk(f.Type, name+".", idx)
				continue
			}
			out = append(out, Key{Name: name, IsMap: f.Type.Kind() == reflect.Map, index: idx})
		}
	}
	walk(reflect.TypeOf(Config{}), "", nil)
	return out
}

// restoreMapCase sets the map-valued keys from the raw file, where their own
// keys keep their case, unless the environment overrides them.
func restoreMapCase(cfg *Config, raw map[string]any, keys []Key) error {
	for _, k := range keys {
		if !k.IsMap {
			continue
		}
		if os.Getenv(EnvVar(k.Name)) != "" { // viper, too, ignores an empty variable
			continue
		}
		val, ok := lookup(raw, k.Name)
		if !ok || val == nil {
			continue
		}
		m, ok := val.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: must be a map of key: value", k.Name)
		}
		reflect.ValueOf(cfg).Elem().FieldByIndex(k.index).Set(reflect.ValueOf(flatten(m)))
	}
	return nil
}

// lookup finds a dotted key in a raw YAML tree, ignoring case as viper does.
func lookup(tree map[string]any, key string) (any, bool) {
	var cur any = tree
	for _, seg := range strings.Split(key, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		found := false
		for k, v := range m {
			if strings.EqualFold(k, seg) {
				cur, found = v, true
				break
			}
		}
		if !found {
			return nil, false
		}
	}
	return cur, true
}

// unknownKeys walks the raw file and warns about every key (or whole section)
// that matches no known key.
func unknownKeys(raw map[string]any, keys []Key) []Warning {
	known := map[string]bool{}    // leaves and maps
	sections := map[string]bool{} // every proper prefix of a known key
	var names []string
	for _, k := range keys {
		known[k.Name] = true
		names = append(names, k.Name)
		parts := strings.Split(k.Name, ".")
		for i := 1; i < len(parts); i++ {
			sections[strings.Join(parts[:i], ".")] = true
		}
	}
	var out []Warning
	var walk func(m map[string]any, prefix, lowerPrefix string)
	walk = func(m map[string]any, prefix, lowerPrefix string) {
		for k, v := range m {
			full, lower := prefix+k, lowerPrefix+strings.ToLower(k)
			switch {
			case known[lower]:
			case sections[lower]:
				if sub, ok := v.(map[string]any); ok {
					walk(sub, full+".", lower+".")
				}
			default:
				msg := "unknown key, ignored"
				if s := closest(lower, names); s != "" {
					msg += "; did you mean " + s + "?"
				} else {
					msg += "; see configs/wecodex.example.yaml for every key"
				}
				out = append(out, Warning{Key: full, Message: msg})
			}
		}
	}
	walk(raw, "", "")
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// closest returns the known key (or key prefix) nearest to a misspelt one, or
// "" when none is close enough to be a likely typo.
func closest(key string, names []string) string {
	best, bestDist := "", 3
	depth := strings.Count(key, ".")
	seen := map[string]bool{}
	for _, n := range names {
		parts := strings.Split(n, ".")
		if len(parts) <= depth {
			continue
		}
		cand := strings.Join(parts[:depth+1], ".")
		if seen[cand] {
			continue
		}
		seen[cand] = true
		if d := editDistance(key, cand); d < bestDist {
			best, bestDist = cand, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
