package codextest

import (
	"bytes"
	"strings"

	"github.com/wecodex/wecodex/internal/scriptedmodel"
)

// The files-back scenario (issue 27): a real command writes a picture, a
// PDF of three upload chunks, a file over the default per-file cap and a
// symlink out of the workspace; the answer then links all of them and a
// path outside the workspace.
const (
	FilesChartName  = "out/chart.png"
	FilesReportName = "report.pdf"
)

// FilesCommand is the shell command that writes the scenario's files.
// printf's octal escapes write the PNG signature; the rest is plain bytes.
const FilesCommand = `mkdir -p out && printf '\211PNG\r\n\032\n\000\000\000\rIHDRchart' > out/chart.png && ` +
	`{ printf '%%PDF-1.4\n'; head -c 1200000 /dev/zero | tr '\000' 'r'; } > report.pdf && ` +
	`head -c 22000000 /dev/zero > big.bin && ln -s /etc/hostname out/link`

// FilesAnswer is the scenario's final answer.
const FilesAnswer = "Done. The chart: ![chart](out/chart.png)\n\nThe report: [report.pdf](report.pdf). " +
	"Also [a secret](../other/secret), [the link](out/link) and [the big one](big.bin)."

// FilesChart and FilesReport are the bytes FilesCommand writes.
var (
	FilesChart  = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDRchart")
	FilesReport = append([]byte("%PDF-1.4\n"), bytes.Repeat([]byte("r"), 1200000)...)
)

// FilesScript is the model's side of the scenario: the command, then the
// answer.
func FilesScript() scriptedmodel.Script {
	return scriptedmodel.Sequence(
		scriptedmodel.Reply(scriptedmodel.ExecCommand("call-files", FilesCommand)),
		scriptedmodel.Reply(scriptedmodel.Message("final_answer", FilesAnswer)),
	)
}

// FilesRefusals are the card's lines for what is never sent, as the
// scenario's card ends with them.
var FilesRefusals = strings.Join([]string{
	"- `../other/secret` — not sent: it is outside the conversation's workspace",
	"- `out/link` — not sent: it is outside the conversation's workspace",
	"- `big.bin` — not sent: it is 21.0 MB, over the 20.0 MB each file may have (cards.files.max_bytes)",
}, "\n")
