package playground

import (
	"bytes"
	"html"
	"strings"

	"unicode/utf8"

	acp "github.com/coder/acp-go-sdk"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/util"

	"github.com/wecodex/wecodex/cards"
)

// HTMLRenderer renders cards, and the markdown of frames, as HTML for the
// page. Markdown goes
// through goldmark without its unsafe mode, and raw HTML in the agent's text
// is shown escaped, as text, instead of being passed through or dropped.
// It is safe for concurrent use.
type HTMLRenderer struct {
	md goldmark.Markdown
}

// NewHTMLRenderer returns a renderer; build one and reuse it.
func NewHTMLRenderer() *HTMLRenderer {
	return &HTMLRenderer{md: goldmark.New(
		// WeCom's client renders tables and strikethrough; so do we. Column
		// alignment goes in attributes, since a page's CSP may refuse inline
		// styles.
		goldmark.WithExtensions(
			extension.NewTable(extension.WithTableCellAlignMethod(extension.TableCellAlignAttribute)),
			extension.Strikethrough,
		),
		goldmark.WithRendererOptions(
			// A lower value than the html renderer's 1000 registers later
			// and so replaces its raw-HTML node renderers.
			renderer.WithNodeRenderers(util.Prioritized(escapedRawHTML{}, 100)),
		),
	)}
}

// Render returns the card as an HTML fragment with stable hooks for tests:
// data-testid="status" (Status.String()), "progress" and "body".
func (r *HTMLRenderer) Render(c *cards.Card) string {
	var b strings.Builder
	st := c.Status()
	b.WriteString(`<article class="card" data-state="`)
	b.WriteString(stateName(st.State))
	b.WriteString("\">\n")
	if title := c.Title(); title != "" {
		b.WriteString("<h2 class=\"card-title\">")
		b.WriteString(esc(title))
		b.WriteString("</h2>\n")
	}
	b.WriteString(`<p class="card-status" data-testid="status">`)
	b.WriteString(esc(st.String()))
	b.WriteString("</p>\n")

	b.WriteString("<section class=\"card-progress\" data-testid=\"progress\">\n")
	for _, it := range c.Progress() {
		r.item(&b, it)
	}
	b.WriteString("</section>\n")

	b.WriteString("<section class=\"card-body\" data-testid=\"body\">\n")
	body := c.Body()
	if strings.TrimSpace(body) == "" && st.State == cards.StateDone {
		body = c.EmptyAnswer(1 << 20)
	}
	r.markdown(&b, body)
	b.WriteString("</section>\n</article>\n")
	return b.String()
}

func (r *HTMLRenderer) item(b *strings.Builder, it cards.ProgressItem) {
	switch it.Kind {
	case cards.ItemThought:
		b.WriteString("<div class=\"thought\">\n")
		r.markdown(b, it.Text)
		b.WriteString("</div>\n")
	case cards.ItemNotice:
		b.WriteString(`<p class="notice" data-level="`)
		b.WriteString(esc(it.Level))
		b.WriteString(`">`)
		b.WriteString(esc(it.Text))
		b.WriteString("</p>\n")
	case cards.ItemTool:
		status := it.Status
		if status == "" {
			status = acp.ToolCallStatusPending
		}
		b.WriteString(`<p class="tool" data-kind="`)
		b.WriteString(esc(string(it.ToolKind)))
		b.WriteString(`" data-status="`)
		b.WriteString(esc(string(status)))
		b.WriteString(`">`)
		b.WriteString(esc(it.Title))
		b.WriteString("</p>\n")
	case cards.ItemPlan:
		b.WriteString("<ol class=\"plan\">\n")
		for _, e := range it.Plan {
			b.WriteString(`<li data-status="`)
			b.WriteString(esc(string(e.Status)))
			b.WriteString(`">`)
			b.WriteString(esc(e.Content)) // the card keeps each entry on one line
			b.WriteString("</li>\n")
		}
		b.WriteString("</ol>\n")
	}
}

// Markdown returns src, markdown, as an HTML fragment, with raw HTML shown
// escaped: for pages that show WeCom frames rather than cards.
func (r *HTMLRenderer) Markdown(src string) string {
	if strings.TrimSpace(src) == "" {
		return ""
	}
	var b strings.Builder
	r.markdown(&b, src)
	return b.String()
}

func (r *HTMLRenderer) markdown(b *strings.Builder, src string) {
	var buf bytes.Buffer
	if err := r.md.Convert([]byte(src), &buf); err != nil {
		// goldmark only fails when the writer does; show the text instead.
		b.WriteString("<pre>")
		b.WriteString(esc(src))
		b.WriteString("</pre>\n")
		return
	}
	b.Write(buf.Bytes())
}

func stateName(s cards.State) string {
	switch s {
	case cards.StateWaitingApproval:
		return "waiting"
	case cards.StateDone:
		return "done"
	case cards.StateCancelled:
		return "cancelled"
	case cards.StateFailed:
		return "failed"
	}
	return "running"
}

// escapedRawHTML renders raw HTML (inline and block) as escaped text.
type escapedRawHTML struct{}

func (escapedRawHTML) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindRawHTML, renderRawHTMLEscaped)
	reg.Register(ast.KindHTMLBlock, renderHTMLBlockEscaped)
}

func renderRawHTMLEscaped(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkSkipChildren, nil
	}
	segs := n.(*ast.RawHTML).Segments
	for i := range segs.Len() {
		s := segs.At(i)
		_, _ = w.WriteString(esc(string(s.Value(src))))
	}
	return ast.WalkSkipChildren, nil
}

func renderHTMLBlockEscaped(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	blk := n.(*ast.HTMLBlock)
	if entering {
		_, _ = w.WriteString("<pre class=\"raw-html\">")
		lines := blk.Lines()
		for i := range lines.Len() {
			s := lines.At(i)
			_, _ = w.WriteString(esc(string(s.Value(src))))
		}
		return ast.WalkContinue, nil
	}
	if blk.HasClosure() {
		_, _ = w.WriteString(esc(string(blk.ClosureLine.Value(src))))
	}
	_, _ = w.WriteString("</pre>\n")
	return ast.WalkContinue, nil
}

// esc escapes s for HTML text or a quoted attribute, as valid UTF-8.
func esc(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	return html.EscapeString(s)
}
