package playground

import (
	"bytes"
	"html"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/util"
)

// markdown renders frame markdown to HTML for the page. The agent's text may
// contain HTML; it is shown as text, escaped, never passed to the browser as
// markup (goldmark's unsafe mode stays off, and raw HTML nodes are rendered
// escaped instead of being dropped, so nothing the agent wrote disappears).
type markdown struct {
	md goldmark.Markdown
}

func newMarkdown() *markdown {
	return &markdown{md: goldmark.New(
		// WeCom's client renders tables and strikethrough; so does the page.
		// Column alignment as attributes: the page's CSP refuses inline styles.
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

// HTML returns src as an HTML fragment.
func (m *markdown) HTML(src string) string {
	if strings.TrimSpace(src) == "" {
		return ""
	}
	var buf bytes.Buffer
	if err := m.md.Convert([]byte(src), &buf); err != nil {
		// goldmark fails only when the writer does; show the text instead.
		return "<pre>" + html.EscapeString(src) + "</pre>\n"
	}
	return buf.String()
}

// escapedRawHTML renders inline and block raw HTML as escaped text.
type escapedRawHTML struct{}

func (escapedRawHTML) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindRawHTML, rawHTMLEscaped)
	reg.Register(ast.KindHTMLBlock, htmlBlockEscaped)
}

func rawHTMLEscaped(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if entering {
		segs := n.(*ast.RawHTML).Segments
		for i := range segs.Len() {
			s := segs.At(i)
			_, _ = w.WriteString(html.EscapeString(string(s.Value(src))))
		}
	}
	return ast.WalkSkipChildren, nil
}

func htmlBlockEscaped(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	blk := n.(*ast.HTMLBlock)
	if entering {
		_, _ = w.WriteString(`<pre class="raw-html">`)
		lines := blk.Lines()
		for i := range lines.Len() {
			s := lines.At(i)
			_, _ = w.WriteString(html.EscapeString(string(s.Value(src))))
		}
		return ast.WalkContinue, nil
	}
	if blk.HasClosure() {
		_, _ = w.WriteString(html.EscapeString(string(blk.ClosureLine.Value(src))))
	}
	_, _ = w.WriteString("</pre>\n")
	return ast.WalkContinue, nil
}
