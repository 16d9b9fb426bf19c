package cards

import (
	"bytes"
	"html"
	"strings"

	acp "github.com/coder/acp-go-sdk"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/util"
)

// HTMLRenderer renders cards as HTML for the playground. Markdown goes
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
func (r *HTMLRenderer) Render(c *Card) string {
	var b strings.Builder
	st := c.Status()
	b.WriteString(`<article class="card" data-state="`)
	b.WriteString(stateName(st.State))
	b.WriteString("\">\n")
	if c.title != "" {
		b.WriteString("<h2 class=\"card-title\">")
		b.WriteString(esc(c.title))
		b.WriteString("</h2>\n")
	}
	b.WriteString(`<p class="card-status" data-testid="status">`)
	b.WriteString(esc(st.String()))
	b.WriteString("</p>\n")

	b.WriteString("<section class=\"card-progress\" data-testid=\"progress\">\n")
	for _, it := range c.progress {
		r.item(&b, it)
	}
	b.WriteString("</section>\n")

	b.WriteString("<section class=\"card-body\" data-testid=\"body\">\n")
	body := c.Body()
	if strings.TrimSpace(body) == "" && st.State == StateDone {
		body = c.emptyAnswer(1 << 20)
	}
	r.markdown(&b, body)
	b.WriteString("</section>\n</article>\n")
	return b.String()
}

func (r *HTMLRenderer) item(b *strings.Builder, it *progressItem) {
	switch it.kind {
	case itemThought:
		b.WriteString("<div class=\"thought\">\n")
		r.markdown(b, it.text.String())
		b.WriteString("</div>\n")
	case itemNotice:
		b.WriteString(`<p class="notice" data-level="`)
		b.WriteString(esc(it.level))
		b.WriteString(`">`)
		b.WriteString(esc(it.text.String()))
		b.WriteString("</p>\n")
	case itemTool:
		status := it.status
		if status == "" {
			status = acp.ToolCallStatusPending
		}
		b.WriteString(`<p class="tool" data-kind="`)
		b.WriteString(esc(string(it.toolKind)))
		b.WriteString(`" data-status="`)
		b.WriteString(esc(string(status)))
		b.WriteString(`">`)
		b.WriteString(esc(it.title))
		b.WriteString("</p>\n")
	case itemPlan:
		b.WriteString("<ol class=\"plan\">\n")
		for _, e := range it.entries {
			b.WriteString(`<li data-status="`)
			b.WriteString(esc(string(e.Status)))
			b.WriteString(`">`)
			b.WriteString(esc(oneLine(e.Content)))
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

func stateName(s State) string {
	switch s {
	case StateWaitingApproval:
		return "waiting"
	case StateDone:
		return "done"
	case StateCancelled:
		return "cancelled"
	case StateFailed:
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
func esc(s string) string { return html.EscapeString(toValidUTF8(s)) }
