package acpbridge

import (
	"errors"
	"io/fs"
	"os/exec"
)

// ErrorKind says what kind of agent failure an error is, so the bot can tell
// an admin what to do without reading the agent's own words.
type ErrorKind int

const (
	// KindOther is any failure no adapter recognised (the zero value).
	KindOther ErrorKind = iota
	// KindNotInstalled: the agent's program cannot be started (missing,
	// not executable).
	KindNotInstalled
	// KindNotAuthenticated: the agent's model provider refused its
	// credentials (401/403), or it has none.
	KindNotAuthenticated
	// KindProviderUnreachable: the agent cannot reach its model provider
	// (no network, a proxy in the way, a wrong base URL).
	KindProviderUnreachable
	// KindCrashed: the agent's process ended under a running call.
	KindCrashed
	// KindHung: the agent's process stopped answering and was killed (and
	// is restarted by the next call).
	KindHung
)

func (k ErrorKind) String() string {
	switch k {
	case KindNotInstalled:
		return "not installed"
	case KindNotAuthenticated:
		return "not authenticated"
	case KindProviderUnreachable:
		return "provider unreachable"
	case KindCrashed:
		return "crashed"
	case KindHung:
		return "hung"
	}
	return "other"
}

// Error is an agent failure whose kind the adapter that saw it knows. Its
// text is the wrapped error's: the kind is for code, the text for people.
type Error struct {
	Kind ErrorKind
	Err  error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// E returns err marked with kind (nil for a nil err).
func E(kind ErrorKind, err error) error {
	if err == nil {
		return nil
	}
	return &Error{Kind: kind, Err: err}
}

// KindOf returns the kind of the outermost *Error in err's chain, or
// KindOther when there is none.
func KindOf(err error) ErrorKind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return KindOther
}

// StartFailure marks an error from starting an agent's program: when the
// program is missing or not executable it is KindNotInstalled, else it is
// returned as it is.
func StartFailure(err error) error {
	if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
		return E(KindNotInstalled, err)
	}
	return err
}
