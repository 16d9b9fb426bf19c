package configs

import (
	"sort"
	"strings"
)

// A misspelt key within typoDistance edits of a known one is an error: it is
// almost surely that key, and ignoring it would leave the real one at its
// default (redis.adr: the embedded store; access.allow_user: nobody let in).
// Up to suggestDistance edits the warning says "did you mean".
const (
	typoDistance    = 1
	suggestDistance = 2
)

// unknownKeys walks the raw file and reports every key (or whole section)
// that matches no known key: a Problem when it is one edit from a known key,
// else a Warning.
func unknownKeys(raw map[string]any, keys []Key) ([]Warning, Problems) {
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
	var warns []Warning
	var ps Problems
	var walk func(m map[string]any, prefix, lowerPrefix string)
	walk = func(m map[string]any, prefix, lowerPrefix string) {
		for k, v := range m {
			full, lower := prefix+k, lowerPrefix+strings.ToLower(k)
			switch {
			case known[lower], ownedByProjects(lower):
			case sections[lower]:
				if sub, ok := v.(map[string]any); ok {
					walk(sub, full+".", lower+".")
				}
			default:
				s, d := closest(lower, names)
				switch {
				case d <= typoDistance:
					ps = append(ps, Problem{Key: full, Message: "unknown key; did you mean " + s + "? (as spelt it is ignored, leaving " + s + " at its default)"})
				case d <= suggestDistance:
					warns = append(warns, Warning{Key: full, Message: "unknown key, ignored; did you mean " + s + "?"})
				default:
					warns = append(warns, Warning{Key: full, Message: "unknown key, ignored; see configs/wecodex.example.yaml for every key"})
				}
			}
		}
	}
	walk(raw, "", "")
	sort.Slice(warns, func(i, j int) bool { return warns[i].Key < warns[j].Key })
	sort.Slice(ps, func(i, j int) bool { return ps[i].Key < ps[j].Key })
	return warns, ps
}

// unknownEnv reports each WECODEX_* variable in environ (KEY=VALUE entries)
// that names no key but starts with a section's name, or a near miss of one
// (WECODEX_REDIS_ADR, WECODEX_REDDIS_ADDR): wecodex would ignore it. Other
// WECODEX_* names (WECODEX_TEST_CODEX_BIN) belong to tools around wecodex
// and are left alone. An empty variable counts too: it is still a typo.
func unknownEnv(environ []string, keys []Key) Problems {
	known := map[string]string{} // variable → key
	sections := map[string]bool{}
	var vars []string
	for _, k := range keys {
		known[EnvVar(k.Name)] = k.Name
		vars = append(vars, EnvVar(k.Name))
		sections[strings.ToUpper(strings.SplitN(k.Name, ".", 2)[0])] = true
	}
	var ps Problems
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		rest, ok := strings.CutPrefix(name, EnvPrefix)
		if !ok || known[name] != "" || !nearSection(strings.SplitN(rest, "_", 2)[0], sections) {
			continue
		}
		msg := "matches no config key, so it is ignored; "
		if s, d := closestName(name, vars); d <= suggestDistance {
			msg += "did you mean " + s + " (" + known[s] + ")?"
		} else {
			msg += "the variable of a key is WECODEX_ + the key upper-cased, dots as underscores (redis.addr: WECODEX_REDIS_ADDR)"
		}
		ps = append(ps, Problem{Key: name, Message: msg})
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i].Key < ps[j].Key })
	return ps
}

func nearSection(word string, sections map[string]bool) bool {
	for s := range sections {
		if editDistance(word, s) <= typoDistance {
			return true
		}
	}
	return false
}

// closest returns the known key (or key prefix at the same depth) nearest to
// a misspelt one and its distance in edits.
func closest(key string, names []string) (string, int) {
	depth := strings.Count(key, ".")
	var cands []string
	seen := map[string]bool{}
	for _, n := range names {
		parts := strings.Split(n, ".")
		if len(parts) <= depth {
			continue
		}
		cand := strings.Join(parts[:depth+1], ".")
		if !seen[cand] {
			seen[cand] = true
			cands = append(cands, cand)
		}
	}
	return closestName(key, cands)
}

// closestName returns the candidate nearest to s and its distance; the first
// in list order wins a tie. With no candidate the distance is huge.
func closestName(s string, cands []string) (string, int) {
	best, bestDist := "", int(^uint(0)>>1)
	for _, c := range cands {
		if d := editDistance(s, c); d < bestDist {
			best, bestDist = c, d
		}
	}
	return best, bestDist
}

// editDistance is the optimal string alignment distance: insertions,
// deletions, substitutions and swaps of two neighbours each count one, so
// "adr", "addrr" and "adrd" are all one edit from "addr".
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
