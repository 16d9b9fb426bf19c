package bot

import "testing"

// The prompt puts the quote first, marked, then the text, the files and
// what could not be attached; a quote alone is the prompt.
func TestPromptText(t *testing.T) {
	for _, tc := range []struct {
		sender         string
		text, quote    string
		files, missing []string
		want           string
	}{
		{"", "fix it", "", nil, nil, "fix it"},
		{"Dana (dana)", "fix it", "", nil, nil, "From: Dana (dana)\n\nfix it"},
		{"dana", "why?", "a", nil, nil, "From: dana\n\nQuoted message:\n> a\n\nwhy?"},
		{"", "", "the quoted ask", nil, nil, "the quoted ask"},
		{"", "why?", "a\nb", nil, nil, "Quoted message:\n> a\n> b\n\nwhy?"},
		{"", "", "", []string{"attachments/x.log"}, nil, "Attached files (paths relative to the working directory):\n- attachments/x.log"},
		{"", "", "", nil, nil, ""}, // a picture alone: Codex gets the image input only
		{"", "see", "", []string{"attachments/a", "attachments/b"}, []string{"c: gone"},
			"see\n\nAttached files (paths relative to the working directory):\n- attachments/a\n- attachments/b\n\nNot attached:\n- c: gone"},
	} {
		if got := promptText(tc.sender, tc.text, tc.quote, tc.files, tc.missing); got != tc.want {
			t.Errorf("promptText(%q, %q, %q, %q, %q) = %q, want %q", tc.sender, tc.text, tc.quote, tc.files, tc.missing, got, tc.want)
		}
	}
}
