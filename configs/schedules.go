package configs

import (
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/go-viper/mapstructure/v2"
)

// ScheduleConfig is one schedules.<name> entry: a turn started on each slot
// of a cron expression, its card pushed to the conversation.
type ScheduleConfig struct {
	// Cron is five fields or a descriptor (@daily, @every 10m); cmd checks
	// it with the scheduler's own parser (configs imports no cron parser).
	Cron string `mapstructure:"cron"`
	// Timezone is an IANA name (Asia/Shanghai); empty is the server's.
	Timezone string `mapstructure:"timezone"`
	// Conversation is the key as the logs show it: group:<chatid>,
	// single:<userid> or app:<userid>.
	Conversation string `mapstructure:"conversation"`
	Prompt       string `mapstructure:"prompt"`
	// Project names one of projects: (issue 25), checked once that exists.
	Project string `mapstructure:"project"`
	// Mode is the permission mode of issue 26; see ScheduleModes.
	Mode string `mapstructure:"mode"`
	// Missed is skip (default) or once: after the whole deployment was
	// down over slots, drop them or run one catch-up.
	Missed string `mapstructure:"missed"`
}

// TriggerConfig is one triggers.<name> entry: POST /hooks/<name>, signed
// with the secret, starts a turn whose prompt is Prompt and the body.
type TriggerConfig struct {
	// SecretFile names the file holding the HMAC secret; required (a
	// trigger's secret never sits in the YAML).
	SecretFile string `mapstructure:"secret_file"`
	// Secret is read from SecretFile by Load.
	Secret       string `mapstructure:"-"`
	Conversation string `mapstructure:"conversation"`
	Prompt       string `mapstructure:"prompt"`
	Project      string `mapstructure:"project"`
	Mode         string `mapstructure:"mode"`
	// MaxBody is how much of the body reaches the prompt (bytes); the rest
	// is cut with a note.
	MaxBody int64 `mapstructure:"max_body"`
}

// Defaults of the schedule and trigger keys.
const (
	DefaultScheduleMode    = "read-only"
	DefaultScheduleMissed  = "skip"
	DefaultTriggerMaxBody  = 64 << 10
	MaxTriggerMaxBody      = 1 << 20
	scheduleNameExpression = `^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$`
)

// ScheduleModes are the permission modes of issue 26 a schedule or trigger
// may name. Until that issue lands every turn runs with agent.* as any
// message does; the value is checked so configs written now stay valid.
var ScheduleModes = []string{"read-only", "workspace", "full"}

// The conversation kinds a schedule may name: the AI bot's (pushed on the
// long connection) and the self-built app's.
const (
	ConversationGroup  = "group"
	ConversationSingle = "single"
	ConversationApp    = "app"
)

var scheduleName = regexp.MustCompile(scheduleNameExpression)

// tableKeys are the sections whose entries are structs keyed by a name the
// admin chooses; Load decodes them from the file itself (decodeTables), so
// the names keep their case and an unknown field is named. They cannot be
// set from the environment.
var tableKeys = map[string]bool{"schedules": true, "triggers": true}

// decodeTables sets cfg's schedules and triggers from the raw file.
func decodeTables(cfg *Config, raw map[string]any) Problems {
	var ps Problems
	ps = append(ps, decodeTable(raw, "schedules", &cfg.Schedules)...)
	ps = append(ps, decodeTable(raw, "triggers", &cfg.Triggers)...)
	for _, name := range sortedKeys(cfg.Triggers) {
		t := cfg.Triggers[name]
		if t.SecretFile == "" {
			continue // validateTriggers names it
		}
		if v, ok := readSecret("triggers."+name+".secret_file", "the trigger's HMAC secret", t.SecretFile, &ps); ok {
			t.Secret = v
			cfg.Triggers[name] = t
		}
	}
	return ps
}

// decodeTable decodes raw[section] into out (a map of structs), one entry
// at a time so each bad entry is named.
func decodeTable[T any](raw map[string]any, section string, out *map[string]T) Problems {
	v, ok := lookup(raw, section)
	if !ok || v == nil {
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return Problems{{section, "must be a map of name: {...}, one entry per " + strings.TrimSuffix(section, "s")}}
	}
	var ps Problems
	res := map[string]T{}
	for _, name := range sortedKeys(m) {
		key := section + "." + name
		var md mapstructure.Metadata
		var t T
		d, err := mapstructure.NewDecoder(&mapstructure.DecoderConfig{Result: &t, Metadata: &md, WeaklyTypedInput: true,
			DecodeHook: mapstructure.ComposeDecodeHookFunc(durationHook)})
		if err == nil {
			err = d.Decode(m[name])
		}
		if err != nil {
			ps = append(ps, Problem{key, "must be a map of the keys configs/wecodex.example.yaml shows: " + rootCause(err)})
			continue
		}
		sort.Strings(md.Unused)
		for _, u := range md.Unused {
			ps = append(ps, Problem{key + "." + u, "unknown key; see configs/wecodex.example.yaml for a " + strings.TrimSuffix(section, "s") + "'s keys"})
		}
		res[name] = t
	}
	if len(res) > 0 {
		*out = res
	}
	return ps
}

func sortedKeys[T any](m map[string]T) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// validateSchedules checks what configs can check alone: the cron
// expression's syntax and whether the conversation's channel can push are
// cmd's (they need the scheduler's parser and the channels).
func validateSchedules(c *Config, add func(key, format string, args ...any)) {
	for _, name := range sortedKeys(c.Schedules) {
		s, key := c.Schedules[name], "schedules."+name
		validateTableName(key, name, add)
		if strings.TrimSpace(s.Cron) == "" {
			add(key+".cron", "required: five fields like \"0 9 * * 1-5\", or a descriptor like @daily or @every 10m")
		}
		if s.Timezone != "" {
			if _, err := time.LoadLocation(s.Timezone); err != nil {
				add(key+".timezone", "%q is not a time zone: use an IANA name like Asia/Shanghai or UTC, or leave it empty for the server's", s.Timezone)
			}
		}
		validateTurnTarget(key, s.Conversation, s.Prompt, s.Mode, add)
		validateTurnProject(c, key, s.Project, add)
		if s.Missed != "" && s.Missed != "skip" && s.Missed != "once" {
			add(key+".missed", "must be one of skip, once, not %q", s.Missed)
		}
	}
	for _, name := range sortedKeys(c.Triggers) {
		t, key := c.Triggers[name], "triggers."+name
		validateTableName(key, name, add)
		if t.SecretFile == "" {
			add(key+".secret_file", "required: a file holding the trigger's HMAC secret (e.g. made with: openssl rand -hex 32 > /etc/wecodex/hook-%s)", name)
		}
		validateTurnTarget(key, t.Conversation, t.Prompt, t.Mode, add)
		validateTurnProject(c, key, t.Project, add)
		if t.MaxBody <= 0 || t.MaxBody > MaxTriggerMaxBody {
			add(key+".max_body", "must be a number of bytes from 1 to %d (1 MiB), not %d", MaxTriggerMaxBody, t.MaxBody)
		}
	}
}

func validateTableName(key, name string, add func(key, format string, args ...any)) {
	if !scheduleName.MatchString(name) {
		add(key, "the name must be 1–64 letters, digits, - or _, starting with a letter or digit: it names the schedule in Redis keys, metrics and URLs")
	}
}

// validateTurnTarget checks a schedule's or trigger's conversation, prompt
// and mode.
func validateTurnTarget(key, conv, prompt, mode string, add func(key, format string, args ...any)) {
	kind, id, ok := strings.Cut(conv, ":")
	switch {
	case conv == "":
		add(key+".conversation", "required: the conversation key as the logs show it: group:<chatid>, single:<userid> or app:<userid>")
	case !ok || id == "" || (kind != ConversationGroup && kind != ConversationSingle && kind != ConversationApp):
		add(key+".conversation", "must be group:<chatid>, single:<userid> or app:<userid> (as the logs show it), not %q", conv)
	}
	if strings.TrimSpace(prompt) == "" {
		add(key+".prompt", "required: what the turn asks Codex")
	}
	if mode != "" && !contains(ScheduleModes, mode) {
		add(key+".mode", "must be one of %s, not %q", strings.Join(ScheduleModes, ", "), mode)
	}
}

// setTableDefaults fills each entry's defaults.
func setTableDefaults(c *Config) {
	for name, s := range c.Schedules {
		if s.Mode == "" {
			s.Mode = DefaultScheduleMode
		}
		if s.Missed == "" {
			s.Missed = DefaultScheduleMissed
		}
		c.Schedules[name] = s
	}
	for name, t := range c.Triggers {
		if t.Mode == "" {
			t.Mode = DefaultScheduleMode
		}
		if t.MaxBody == 0 {
			t.MaxBody = DefaultTriggerMaxBody
		}
		c.Triggers[name] = t
	}
}

// validateTurnProject checks that a schedule's or trigger's project is one of
// projects:.
func validateTurnProject(c *Config, key, project string, add func(key, format string, args ...any)) {
	if project == "" {
		return
	}
	var names []string
	for _, p := range c.Projects.List {
		if p.Name == project {
			return
		}
		names = append(names, p.Name)
	}
	if len(names) == 0 {
		add(key+".project", "names project %q, but projects: has none", project)
		return
	}
	add(key+".project", "names project %q, which projects: does not have (it has %s)", project, strings.Join(names, ", "))
}
