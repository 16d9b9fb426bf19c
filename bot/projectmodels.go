package bot

import (
	"context"
	"log/slog"
)

// ProjectModels is what Projects may add: a project's own list of models
// (projects.<name>.models), which replaces agent.models for its
// conversations (empty keeps agent.models), and its default model
// (projects.<name>.model, "" for Codex's).
type ProjectModels interface {
	Models(project string) []string
	Model(project string) string
}

// allowedModels is the list an admin fixed for project ("" for none):
// projects.<name>.models, else agent.models; nil when Codex's model/list
// decides.
func allowedModels(cfg Config, project string) []string {
	if pm, ok := cfg.Projects.(ProjectModels); ok && project != "" {
		if list := pm.Models(project); len(list) > 0 {
			return list
		}
	}
	return cfg.Models.Allowed
}

// modelAllowed reports whether a conversation in project may run with
// the model it chose: not when the admin fixed a list without it (it
// chose it in another project, or the list changed since). What Codex's
// model/list offers is not asked per turn: Codex refuses a model it lacks.
func modelAllowed(cfg Config, project, model string) bool {
	fixed := allowedModels(cfg, project)
	return model == "" || len(fixed) == 0 || contains(fixed, model)
}

// projectModel is project's default model, "" for Codex's.
func projectModel(cfg Config, project string) string {
	if pm, ok := cfg.Projects.(ProjectModels); ok && project != "" {
		return pm.Model(project)
	}
	return ""
}

// turnModel is the model q's turn asks for: the conversation's choice
// while its project offers it, else the project's default, else Codex's
// (ModelConfig.Default), named so that a thread that ran with the
// dropped choice leaves it.
func (r *turnRunner) turnModel(ctx context.Context, log *slog.Logger, q queued, chosen string) string {
	if chosen == "" {
		return ""
	}
	project, err := r.projectOf(ctx, q)
	if err != nil {
		// The turn's session fails on the same error; keep the choice.
		return chosen
	}
	if modelAllowed(r.cfg, project, chosen) {
		return chosen
	}
	def := projectModel(r.cfg, project)
	if def == "" && r.cfg.Models.Default != nil {
		var err error
		if def, err = r.cfg.Models.Default(ctx); err != nil {
			log.Warn("name Codex's default model; the turn names none", "err", err)
		}
	}
	log.Info("chosen model not offered here; the turn uses the default", "project", project, "model", chosen, "default", def)
	return def
}
