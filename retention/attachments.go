package retention

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"time"

	"github.com/wecodex/wecodex/acpbridge"
)

// sweepAttachments removes the regular files under each conversation
// workspace's attachments/ (root/<workspace>/attachments, where a message's
// files are saved) last modified before cutoff, and returns them relative
// to root. Each workspace is opened as an os.Root, so a symlink the agent
// left there never leads the sweep out of it. Projects' directories
// (root/.projects, a path project's own) are not swept: an attachments/
// there may be the repository's own.
func sweepAttachments(root string, cutoff time.Time) ([]string, error) {
	entries, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("retention.attachments: %w", err)
	}
	var removed []string
	var errs []error
	for _, e := range entries {
		// Dot directories are .tmp and .projects, no conversation's.
		if !e.IsDir() || e.Name()[0] == '.' {
			continue
		}
		files, err := removeOld(filepath.Join(root, e.Name()), cutoff)
		for _, f := range files {
			removed = append(removed, path.Join(e.Name(), f))
		}
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return removed, fmt.Errorf("retention.attachments: %w", err)
	}
	return removed, nil
}

// removeOld removes the regular files under workspace's attachments/
// modified before cutoff (a zero cutoff: all of them); it returns their
// paths relative to the workspace.
func removeOld(workspace string, cutoff time.Time) ([]string, error) {
	r, err := os.OpenRoot(workspace)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if fi, err := r.Lstat(acpbridge.AttachmentsDir); err != nil || !fi.IsDir() {
		return nil, nil // none saved yet, or not a directory wecodex made
	}
	var removed []string
	err = fs.WalkDir(r.FS(), acpbridge.AttachmentsDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		fi, err := d.Info()
		if err != nil || (!cutoff.IsZero() && !fi.ModTime().Before(cutoff)) {
			return err
		}
		if err := r.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		removed = append(removed, p)
		return nil
	})
	return removed, err
}
