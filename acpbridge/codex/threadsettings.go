package codex

// ThreadSettings are what one thread runs with besides its working
// directory and sandbox: for wecodex, its project's (projects.<name>.model,
// effort, instructions). A zero field leaves Codex's configuration in
// charge.
type ThreadSettings struct {
	// Model is the model the thread's turns use.
	Model string
	// Effort is the reasoning effort, sent as the thread's
	// model_reasoning_effort.
	Effort string
	// Instructions are developer instructions for every turn of the
	// thread, sent as thread/start's and thread/resume's
	// developerInstructions (Codex keeps them with the thread's history
	// only as it was started, so a resume sends them again).
	Instructions string
}

// settings are the ThreadSettings of a thread working in cwd.
func (a *Agent) settings(cwd string) ThreadSettings {
	if a.opts.Thread == nil || cwd == "" {
		return ThreadSettings{}
	}
	return a.opts.Thread(cwd)
}

// withEffort adds the effort to a thread's per-thread config.
func withEffort(cfg map[string]any, s ThreadSettings) map[string]any {
	if s.Effort == "" {
		return cfg
	}
	if cfg == nil {
		cfg = map[string]any{}
	}
	cfg["model_reasoning_effort"] = s.Effort
	return cfg
}
