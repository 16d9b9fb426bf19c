// Package housetest keeps the house (DESIGN.md, "The house"): each package's
// import-direction test names what it may import, and Imports checks it;
// this package's own TestHouse walks the module for the rules that span
// packages (nothing imports cmd, no test support in production code, the
// issue-24 refinements).
package housetest

import (
	"go/build"
	"strings"
	"testing"
)

// Imports fails t for each import of the package in the current directory
// (its production files, not its tests) that is neither the standard library
// nor allowed: an allowed path is an import path, or a path ending in "/..."
// for it and everything below it.
func Imports(t *testing.T, allowed ...string) {
	t.Helper()
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatalf("read the package's imports: %v", err)
	}
	for _, imp := range pkg.Imports {
		if !standard(imp) && !under(imp, allowed) {
			t.Errorf("%s imports %s; it may import only the standard library and %s", pkg.Name, imp, strings.Join(allowed, ", "))
		}
	}
}

// standard reports whether path is in the standard library: its first
// element has no dot.
func standard(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

// under reports whether path is allowed by one of allowed (see Imports).
func under(path string, allowed []string) bool {
	for _, a := range allowed {
		if tree, ok := strings.CutSuffix(a, "/..."); ok {
			if path == tree || strings.HasPrefix(path, tree+"/") {
				return true
			}
		} else if path == a {
			return true
		}
	}
	return false
}
