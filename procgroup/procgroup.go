// Package procgroup starts a command as the leader of a process group of its
// own and signals the whole group, so what the command started goes with it:
// the native Codex behind its npm launcher, the app-server an ACP agent runs,
// the commands Codex runs. It is the one place wecodex and its test harnesses
// spell process groups; where a platform has none, the command alone is
// signalled.
//
// It sits at the top of the module, not under acpbridge/internal, because the
// test harnesses (internal/codextest, internal/demo) start Codex with it too,
// and Go's internal rule would close an acpbridge/internal package to them.
package procgroup
