package bot

import (
	"context"
	"log/slog"
	"time"

	"github.com/wecodex/wecodex/cards"
)

// sendFiles sends the files the turn's answer points at, the pictures the
// agent looked at (images: absolute paths, checked like links) and the ones
// its image tool drew (generated: the paths it reported, read only from
// Config.GeneratedImages), through
// its presenter and lists them at the end of the card's body, each with how
// it went, before the final snapshot. The answer itself is never held back:
// a file that cannot be read or sent only says so on its line.
func (r *turnRunner) sendFiles(ctx context.Context, log *slog.Logger, q queued, pres Presentation, card CardControl, images, generated []string) {
	var answer string
	card.Do(func(c *cards.Card) { answer = c.Body() })
	if answer == "" && len(images) == 0 && len(generated) == 0 {
		return
	}
	// A picture Codex produced is sent as if the answer linked to it (once,
	// however often it was linked or viewed); PickFiles keeps it to the
	// workspace.
	for _, p := range images {
		answer += "\n![](<" + p + ">)"
	}
	_, cwd, err := r.store.Conversation(ctx, q.Conversation)
	if err != nil || cwd == "" {
		log.Warn("files of the answer not looked for: the workspace is unknown", "err", err)
		return
	}
	files := PickTurnFiles(answer, cwd, generated, r.cfg.GeneratedImages, r.cfg.Files)
	if len(files) == 0 {
		return
	}
	var sendable []OutFile
	for _, f := range files {
		if f.Refused == "" {
			sendable = append(sendable, f)
		}
	}
	notes := make([]string, len(files))
	if len(sendable) > 0 {
		sent := r.deliver(ctx, pres, sendable)
		j := 0
		for i, f := range files {
			if f.Refused == "" {
				notes[i] = sent[j]
				j++
			}
		}
	}
	log.Info("files of the answer", "linked", len(files), "sendable", len(sendable))
	card.Do(func(c *cards.Card) { c.AddSection(filesSection(files, notes)) })
}

// deliver hands files to the presenter, bounded, and returns one note per
// file.
func (r *turnRunner) deliver(ctx context.Context, pres Presentation, files []OutFile) []string {
	notes := make([]string, len(files))
	fs, ok := pres.presenter.(FileSender)
	if !ok {
		for i := range notes {
			notes[i] = textNoFileSender
		}
		return notes
	}
	dctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	got := fs.SendFiles(dctx, files)
	for i := range notes {
		notes[i] = "not sent: the channel did not say what became of it"
		if i < len(got) && got[i] != "" {
			notes[i] = got[i]
		}
	}
	return notes
}
