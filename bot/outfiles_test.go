package bot

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var pngBytes = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00")

func TestPickFiles(t *testing.T) {
	root := t.TempDir()
	ws := filepath.Join(root, "ws")
	other := filepath.Join(root, "other")
	for _, d := range []string{filepath.Join(ws, "out"), other} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p string, b []byte) {
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(ws, "out", "chart.png"), pngBytes)
	write(filepath.Join(ws, "report.pdf"), []byte("%PDF-1.4 report"))
	write(filepath.Join(ws, "fake.png"), []byte("not a picture"))
	write(filepath.Join(ws, "big.bin"), make([]byte, 101))
	write(filepath.Join(other, "secret"), []byte("secret"))
	if err := os.Symlink(filepath.Join(other, "secret"), filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("report.pdf", filepath.Join(ws, "inner")); err != nil {
		t.Fatal(err)
	}
	answer := strings.Join([]string{
		"Here: ![chart](out/chart.png) and [the report](" + filepath.Join(ws, "report.pdf") + ").",
		"Again [report](./report.pdf), a [site](https://example.com/x.png), an [anchor](#top).",
		"[secret](../other/secret) [link](link) [inner](inner) [dir](out) [gone](gone.txt)",
		"[fake](fake.png) [big](big.bin) [abs](" + filepath.Join(other, "secret") + ")",
	}, "\n")
	got := PickFiles(answer, ws, FileLimits{MaxCount: 10, MaxBytes: 100, MaxTotalBytes: 1000})
	type row struct {
		name    string
		image   bool
		size    int
		refused string
	}
	want := []row{
		{"out/chart.png", true, len(pngBytes), ""},
		{"report.pdf", false, 15, ""},
		{"../other/secret", false, 0, textFileOutside},
		{"link", false, 0, textFileOutside},
		{"inner", false, 15, ""},
		{"out", false, 0, textFileNotRegular},
		{"gone.txt", false, 0, textFileMissing},
		{"fake.png", false, 13, ""},
		{"big.bin", false, 0, "not sent: it is 101 B, over the 100 B each file may have (cards.files.max_bytes)"},
		{filepath.Join(other, "secret"), false, 0, textFileOutside},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d files, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		if g.Name != w.name || g.Image != w.image || len(g.Data) != w.size || g.Refused != w.refused {
			t.Errorf("file %d = {%q image=%v %d B %q}, want %+v", i, g.Name, g.Image, len(g.Data), g.Refused, w)
		}
	}
}

func TestPickFilesLimits(t *testing.T) {
	ws := t.TempDir()
	var answer strings.Builder
	for _, n := range []string{"a", "b", "c", "d"} {
		if err := os.WriteFile(filepath.Join(ws, n), []byte("0123456789"), 0o644); err != nil {
			t.Fatal(err)
		}
		answer.WriteString("[" + n + "](" + n + ") ")
	}
	got := PickFiles(answer.String(), ws, FileLimits{MaxCount: 3, MaxBytes: 10, MaxTotalBytes: 25})
	want := []string{"", "",
		"not sent: with it the answer's files would pass 25 B together (cards.files.max_total_bytes)",
		"not sent: an answer sends at most 3 files (cards.files.max_count)"}
	want[3] = want[2] // c is refused by the total, so only two count, and d fails the total too
	for i, w := range want {
		if got[i].Refused != w {
			t.Errorf("file %s refused %q, want %q", got[i].Name, got[i].Refused, w)
		}
	}
	got = PickFiles(answer.String(), ws, FileLimits{MaxCount: 2, MaxBytes: 10, MaxTotalBytes: 100})
	if got[2].Refused != "not sent: an answer sends at most 2 files (cards.files.max_count)" || got[3].Refused != got[2].Refused {
		t.Errorf("count limit: %q, %q", got[2].Refused, got[3].Refused)
	}
	if PickFiles("no links here, just [brackets] and (parens)", ws, FileLimits{}) != nil {
		t.Error("an answer without links picked files")
	}
}

func TestFilesSection(t *testing.T) {
	files := []OutFile{{Name: "out/chart.png", Image: true, Data: pngBytes}, {Name: "../x", Refused: textFileOutside}}
	got := filesSection(files, []string{"shown with the answer", ""})
	want := "📎 **Files**\n- `out/chart.png` — shown with the answer\n- `../x` — " + textFileOutside
	if got != want {
		t.Errorf("section\n%s\nwant\n%s", got, want)
	}
}

// TestPickTurnFilesGenerated: a picture the agent's image tool saved is
// read from the generated pictures' directory only, as a PNG or JPEG, after
// the answer's own files and within the same caps.
func TestPickTurnFilesGenerated(t *testing.T) {
	ws, gen, other := t.TempDir(), t.TempDir(), t.TempDir()
	write := func(p string, b []byte) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(ws, "a.png"), pngBytes)
	write(filepath.Join(gen, "th", "ig_1.png"), pngBytes)
	write(filepath.Join(gen, "th", "ig_2.png"), []byte("not a picture"))
	write(filepath.Join(gen, "th", "ig_3.png"), pngBytes)
	write(filepath.Join(gen, "th", "ig_6.png"), pngBytes)
	write(filepath.Join(other, "ig_4.png"), pngBytes)
	if err := os.Symlink(filepath.Join(other, "ig_4.png"), filepath.Join(gen, "th", "ig_5.png")); err != nil {
		t.Fatal(err)
	}
	generated := []string{
		filepath.Join(gen, "th", "ig_1.png"), filepath.Join(gen, "th", "ig_2.png"),
		filepath.Join(other, "ig_4.png"), filepath.Join(gen, "th", "ig_5.png"),
		filepath.Join(gen, "th", "ig_3.png"), filepath.Join(gen, "th", "ig_6.png"),
	}
	got := PickTurnFiles("![a](a.png) and ![again]("+filepath.Join(gen, "th", "ig_3.png")+")", ws, generated, gen, FileLimits{MaxCount: 3})
	want := []string{
		"a.png|",
		filepath.Join(gen, "th", "ig_3.png") + "|" + textFileOutside, // the answer's link is no generated picture
		"generated_images/th/ig_1.png|",
		"generated_images/th/ig_2.png|" + textGeneratedNotImage,
		filepath.Join(other, "ig_4.png") + "|" + textGeneratedOutside,
		"generated_images/th/ig_5.png|" + textGeneratedOutside, // a symlink out of the directory
		"generated_images/th/ig_3.png|",
		"generated_images/th/ig_6.png|not sent: an answer sends at most 3 files (cards.files.max_count)",
	}
	if len(got) != len(want) {
		t.Fatalf("got %d files %+v, want %d", len(got), got, len(want))
	}
	for i, f := range got {
		if s := f.Name + "|" + f.Refused; s != want[i] {
			t.Errorf("file %d = %q, want %q", i, s, want[i])
		}
	}
	if !got[2].Image || string(got[2].Data) != string(pngBytes) {
		t.Errorf("generated picture %+v, want the PNG's bytes as an image", got[2])
	}
	if none := PickTurnFiles("", ws, generated[:1], "", FileLimits{}); len(none) != 1 || none[0].Refused != textGeneratedOutside {
		t.Errorf("with no generated pictures' directory: %+v, want it refused as %q", none, textGeneratedOutside)
	}
}
