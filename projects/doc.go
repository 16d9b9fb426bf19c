// Package projects owns the projects admins bind chats and users to
// (projects: in the YAML): which project a conversation works in, and the
// directory it works in there.
//
// A Registry holds the projects in the admin's order. Resolve answers "which
// project does this conversation get": the first project whose Chats name
// the conversation's group chat or whose Users name its user, else the one
// marked Default, else none (the engine then gives the conversation an
// empty directory of its own, as without projects). Workspace answers "give
// me the working directory of conversation X in project P", preparing it:
//
//   - a Path project is an existing checkout; every conversation works in it
//     as it is.
//   - a Git project is cloned once per replica into the state directory
//     (Options.StateDir/projects/<name>/clone.git, bare), under a file lock so
//     two replicas sharing the directory, or two turns at once, never race,
//     and fetched when a conversation starts on it (its worktree is made).
//     Each conversation then works in its own git worktree on the branch
//     wecodex/<id>, made from the project's Ref on first use; <id> is the
//     conversation's key made into one path element and a valid ref name
//     (ConversationID). Two conversations never see each other's uncommitted
//     changes.
//
// A git project's conversation has one directory of its own,
// Options.WorkspaceRoot/.projects/<name>/<id>, holding:
//
//	<name>/   its worktree: Workspace.Dir, where Codex works
//	gitdir/   its git directory (bare), Workspace.GitDir: the branch, the
//	          objects it made (the clone's are borrowed through git's
//	          alternates), and under worktrees/<name> the index and HEAD
//	tmp/      its private temporary directory, Workspace.Tmp
//
// so its commands can run git add and git commit with write access to that
// one directory (Workspace.Write), reading the clone's objects, and with
// what git run outside the sandbox would obey kept read-only
// (Workspace.Read): nothing of another conversation. A worktree of the
// shared clone itself would need the clone's objects and refs writable by
// every conversation; and Codex (0.171.0) makes the git directory a
// writable worktree's .git file points at read-only, which is why the
// worktree is not itself the writable root. The git commands this package
// runs never run hooks or an fsmonitor.
//
// Cleanup removes the worktrees unused for Options.IdleCleanup whose
// conversation no turn holds (the caller says which, from the leases);
// their branches stay, and the next message makes the worktree again from
// the branch.
//
// The package knows nothing of the engine, the store or Codex: cmd/wecodex
// builds a Registry from the configs and hands the engine what it declares
// it needs (bot.Projects), and the sandbox and Codex's thread settings what
// a session working in a directory gets (ForDir).
package projects
