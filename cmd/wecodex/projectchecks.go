package main

import (
	"context"
	"os"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/wecodex/wecodex/childenv"
	"github.com/wecodex/wecodex/configs"
	"github.com/wecodex/wecodex/projects"
)

// projectWarnings are the projects' bindings that can never apply: a user
// whom no access list lets message the bot, a chat access.allow_chats does
// not open (only members allowed on their own can use the bot there).
func projectWarnings(cfg *configs.Config) []configs.Warning {
	a := cfg.Access
	var ws []configs.Warning
	for _, p := range cfg.Projects.List {
		for i, u := range p.Users {
			if !slices.Contains(a.AllowUsers, u) && !slices.Contains(a.AllowUsers, "*") && !slices.Contains(a.Admins, u) {
				ws = append(ws, configs.Warning{Key: p.Key("users") + "[" + strconv.Itoa(i) + "]",
					Message: u + " is named by no access list (access.allow_users, access.admins): they reach the bot only in a group access.allow_chats opens; add them there or remove them here"})
			}
		}
		for i, c := range p.Chats {
			if !slices.Contains(a.AllowChats, c) && !slices.Contains(a.AllowChats, "*") {
				ws = append(ws, configs.Warning{Key: p.Key("chats") + "[" + strconv.Itoa(i) + "]",
					Message: c + " is not in access.allow_chats: only members allowed on their own can use the bot there; add it there or remove it here"})
			}
		}
	}
	return ws
}

// remoteTimeout bounds how long check-config waits for one git remote.
const remoteTimeout = 20 * time.Second

// remoteWarnings asks each git project's remote whether it answers, all at
// once, and warns, with git's reason, for each that does not: serve would
// clone it on a conversation's first message and fail that turn. A remote
// down now may be up then, so it is a warning, not an error.
func remoteWarnings(ctx context.Context, cfg *configs.Config) []configs.Warning {
	env, _ := childenv.Filter(os.Environ())
	ws := make([]*configs.Warning, len(cfg.Projects.List))
	var wg sync.WaitGroup
	for i, p := range cfg.Projects.List {
		if p.Git == "" {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(ctx, remoteTimeout)
			defer cancel()
			if err := projects.Probe(ctx, "", env, p.Git); err != nil {
				if ctx.Err() != nil {
					err = ctx.Err()
				}
				ws[i] = &configs.Warning{Key: p.Key("git"), Message: "cannot reach " + p.Git + ": " + err.Error()}
			}
		}()
	}
	wg.Wait()
	var out []configs.Warning
	for _, w := range ws {
		if w != nil {
			out = append(out, *w)
		}
	}
	return out
}
