package main

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/configs"
	"github.com/wecodex/wecodex/metrics"
	"github.com/wecodex/wecodex/store"
)

// channel is one configured way users reach the engine, in the shape serve
// runs it: the bot.Channel registered on the engine, and what the server
// does for it (an HTTP endpoint, a connection to keep, a line on /readyz).
//
// Adding a channel (issue 17's self-built app, wecom.app.*) takes one
// constructor with the channelConstructor signature, returning nil when its
// config section is off, and one line naming it in configuredChannels.
// Neither the engine wiring nor the server changes: the engine is built once
// with every channel registered, each endpoint is mounted at its path, each
// connection runs beside the engine and stops with it, and /readyz lists each
// channel's state under its name.
type channel struct {
	// name is the channel's config section and its key on /readyz
	// ("wecom_aibot"), the words an admin configures it by.
	name string
	// bot is what the engine presents turns on.
	bot bot.Channel
	// attach, when set, finishes what needs the running engine (its intake
	// for callbacks); it is called once, right after the engine is built.
	attach func(e *bot.Engine) error
	// path and handler are the channel's HTTP endpoint on server.addr
	// (handler is complete once attach has run); handler nil: none.
	path    string
	handler http.Handler
	// run, when set, keeps the channel's connection until ctx ends.
	run func(ctx context.Context) error
	// status says whether the channel can serve users, and where it stands
	// in words an admin can act on.
	status func() (ready bool, state string)
	// close, when set, stops and waits for what the channel does in the
	// background (fetching messages' files); called once the HTTP server
	// has stopped, before the engine stops.
	close func()
	// started is the info line logged once the engine runs, with its
	// attributes (what the admin configured, never a secret).
	started      string
	startedAttrs []any
}

// channelEnv is what a channel constructor may build on.
type channelEnv struct {
	Store   *store.DB // each channel builds the part of it that it uses
	Replica string
	Obs     *metrics.Metrics
	Log     *slog.Logger
}

// channelConstructor builds a channel from its config section, or returns
// nil when the section is off.
type channelConstructor func(cfg *configs.Config, env channelEnv) (*channel, error)

// configuredChannels builds every channel cfg turns on, in registration
// order.
func configuredChannels(cfg *configs.Config, env channelEnv) ([]*channel, error) {
	var chans []*channel
	for _, build := range []channelConstructor{
		aibotChannel,
		appChannel,
	} {
		ch, err := build(cfg, env)
		if err != nil {
			return nil, err
		}
		if ch != nil {
			chans = append(chans, ch)
		}
	}
	return chans, nil
}

// closeChannels runs each channel's close.
func closeChannels(chans []*channel) {
	for _, ch := range chans {
		if ch.close != nil {
			ch.close()
		}
	}
}

func botChannels(chans []*channel) []bot.Channel {
	out := make([]bot.Channel, 0, len(chans))
	for _, ch := range chans {
		out = append(out, ch.bot)
		out = append(out, pushChannels(ch.bot)...) // schedules.go
	}
	return out
}
