// Package scriptedmodel is a stand-in for the OpenAI Responses API that answers
// `POST /v1/responses` with a scripted server-sent-event stream, byte for byte in
// the shape the real API streams, so the real `codex` binary runs whole turns
// offline: assistant messages with a phase, reasoning summaries, and
// `exec_command` function calls that Codex really executes.
//
// It has no dependency on package testing: tests (through internal/codextest),
// `make demo` and benchmarks all drive Codex with it. A [Script] decides each
// reply; [Server.Requests] records what Codex sent, so a test can check that a
// command's output went back to the model. Streams can be slowed down or held at
// a [Gate] so a test can interrupt or kill Codex mid-answer.
package scriptedmodel
