package configs

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"time"

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
// without validating it (see Validate, or Check for both at once). Keys the
// file has but wecodex does not know come back as warnings, unless one is a
// single edit away from a known key (redis.adr): that is a typo which would
// silently leave the real key at its default, so it is a Problem.
//
// Every key is decoded on its own, so one bad value does not hide another:
// when keys cannot be decoded, are misspelt, or a WECODEX_* variable matches
// no key, the error is Problems naming each of them, and the Config is still
// returned with the default for every key in error. Any other error (a file
// that cannot be read or parsed) comes with a nil Config.
//
// Each secret key has a _file twin (wecom.aibot.token_file, ...) naming a
// file that holds it: Load reads the file into the secret (see
// readSecretFiles), so what follows sees the secret whichever way it came.
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
	var projects []ProjectConfig
	var projectProblems Problems
	if path != "" {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, nil, fmt.Errorf("read config: %w", err)
		}
		var dup bool
		projects, projectProblems, dup = decodeProjects(data)
		if dup {
			return nil, nil, projectProblems
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

	cfg := Default()
	ps := decodeKeys(v, cfg, keys)
	cfg.Projects.List = projects
	ps = append(ps, projectProblems...)
	ps = append(ps, restoreMapCase(cfg, raw, keys)...)
	ps = append(ps, decodeTables(cfg, raw)...)
	setTableDefaults(cfg)
	// An empty list or map in the file means the same as none: one zero value.
	for _, k := range keys {
		f := reflect.ValueOf(cfg).Elem().FieldByIndex(k.index)
		if (f.Kind() == reflect.Slice || f.Kind() == reflect.Map) && f.Len() == 0 {
			f.SetZero()
		}
	}
	ps = append(ps, readSecretFiles(cfg)...)
	ps = append(ps, readEnvFiles(cfg)...)
	warns, typos := unknownKeys(raw, keys)
	ps = append(ps, typos...)
	ps = append(ps, unknownEnv(os.Environ(), keys)...)
	if len(ps) > 0 {
		return cfg, warns, ps
	}
	return cfg, warns, nil
}

// decodeKeys sets each key of cfg from v, one key at a time so every bad value
// is reported. A key that fails keeps its default.
func decodeKeys(v *viper.Viper, cfg *Config, keys []Key) Problems {
	hook := viper.DecodeHook(mapstructure.ComposeDecodeHookFunc(durationHook, sliceHook, stringMapHook))
	var ps Problems
	for _, k := range keys {
		if !v.IsSet(k.Name) || tableKeys[k.Name] {
			continue
		}
		f := reflect.ValueOf(cfg).Elem().FieldByIndex(k.index)
		val := reflect.New(f.Type())
		if err := v.UnmarshalKey(k.Name, val.Interface(), hook); err != nil {
			ps = append(ps, Problem{Key: k.Name, Message: decodeMessage(f.Type(), v.Get(k.Name), err)})
			continue
		}
		f.Set(val.Elem())
	}
	return ps
}

// decodeMessage says what a key's value must look like, in an admin's words
// rather than the decoder's.
func decodeMessage(t reflect.Type, got any, err error) string {
	switch {
	case t == reflect.TypeOf(time.Duration(0)):
		return fmt.Sprintf("must be a duration with a unit, like 500ms, 30s or 30m, not %v", got)
	case t.Kind() == reflect.Int:
		return fmt.Sprintf("must be a whole number, not %q", fmt.Sprint(got))
	case t.Kind() == reflect.Bool:
		return fmt.Sprintf("must be true or false, not %q", fmt.Sprint(got))
	case t.Kind() == reflect.Slice:
		return "must be a list, like [a, b] (in the environment: a,b)"
	case t.Kind() == reflect.Map:
		return "must be a map of key: value (in the environment: K=V,K2=V2): " + rootCause(err)
	default:
		return fmt.Sprintf("must be text, not %v", got)
	}
}

// rootCause is the innermost message of a decoder error, without the
// decoder's own framing of which field it was decoding.
func rootCause(err error) string {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err.Error()
		}
		err = next
	}
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
			if f.Tag.Get("mapstructure") == "-" {
				continue // read on its own (projects.<name>)
			}
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
func restoreMapCase(cfg *Config, raw map[string]any, keys []Key) Problems {
	var ps Problems
	for _, k := range keys {
		if !k.IsMap || tableKeys[k.Name] {
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
			ps = append(ps, Problem{Key: k.Name, Message: "must be a map of key: value"})
			continue
		}
		reflect.ValueOf(cfg).Elem().FieldByIndex(k.index).Set(reflect.ValueOf(flatten(m)))
	}
	return ps
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
