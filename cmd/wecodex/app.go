package main

import (
	"fmt"

	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/bot/wecom/app"
	"github.com/wecodex/wecodex/configs"
	"github.com/wecodex/wecodex/store"
)

// appName is the self-built app's key on /readyz.
const appName = "wecom_app"

// appChannel is the self-built app (wecom.app.*): WeCom POSTs its XML
// callbacks to wecom.app.path, and answers go out through the app API;
// nil when the section is off.
func appChannel(cfg *configs.Config, env channelEnv) (*channel, error) {
	if !cfg.AppEnabled() {
		return nil, nil
	}
	a := cfg.WeCom.App
	hosts, err := allowedHosts(cfg)
	if err != nil {
		return nil, err
	}
	c, err := app.New(app.Options{CorpID: a.CorpID, AgentID: a.AgentID, Secret: a.Secret, Token: a.Token,
		EncodingAESKey: a.EncodingAESKey, Store: store.NewApp(env.Store), Replica: env.Replica, APIBase: a.APIBase, Logger: env.Log,
		Hosts: hosts, MediaTimeout: cfg.WeCom.Media.Timeout, MediaMaxBytes: cfg.WeCom.Media.MaxBytes})
	if err != nil {
		return nil, fmt.Errorf("wecom.app: %w", err)
	}
	ch := &channel{name: appName, bot: c, path: a.Path,
		status:  func() (bool, string) { return true, "app callbacks at " + a.Path },
		started: "wecom self-built app", startedAttrs: []any{"path", a.Path, "corp_id", a.CorpID, "agent_id", a.AgentID}}
	ch.attach = func(e *bot.Engine) error {
		ch.handler = observeCallbacks(app.Name, env.Obs, c.Handler(e))
		return nil
	}
	ch.close = c.Close
	return ch, nil
}
