package acpbridge

// Model is one model an agent offers its sessions.
type Model struct {
	// ID is what a turn names (Prompt.Model).
	ID string
	// Name is the agent's display name for it.
	Name string
	// Efforts are the reasoning efforts it supports (Prompt.Effort).
	Efforts []string
	// DefaultEffort is the effort it runs with when none is chosen.
	DefaultEffort string
	// Default is the agent's default model.
	Default bool
}
