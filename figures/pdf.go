package figures

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"time"

	"codeberg.org/go-pdf/fpdf"
	"golang.org/x/image/font/sfnt"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
)

// pdfDate is every PDF's creation and modification date, so that the same figure
// gives the same bytes (a date would only tell when the URL was fetched).
var pdfDate = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// pdfCanvas is a vg.Canvas that writes a one-page PDF with go-pdf/fpdf, its fonts
// embedded as subsets in UTF-8 (Type0, Identity-H, with a ToUnicode map), so every
// character draws with the figure's font and a PDF reader extracts it as itself.
// gonum's vgpdf encodes text in code page 1252 instead, which garbles ‖, ∂ and α.
//
// Coordinates: vg and PDF both put the origin at the bottom left with y up and
// lengths in points, so the canvas writes vg's transforms as PDF matrices as they
// are; fpdf's own drawing calls count y down from the top, so points go to fpdf as
// (x, height − y).
type pdfCanvas struct {
	doc   *fpdf.Fpdf
	w, h  vg.Length
	fonts map[*sfnt.Font]string // each face's name in the document
	depth int                   // open Push calls
	width vg.Length             // the line width: not positive draws no strokes
	saved []vg.Length           // the line widths saved by Push
	nimg  int
}

// newPDF returns an empty one-page w × h PDF canvas.
func newPDF(w, h vg.Length) *pdfCanvas {
	doc := fpdf.NewCustom(&fpdf.InitType{UnitStr: "pt", Size: fpdf.SizeType{Wd: w.Points(), Ht: h.Points()}})
	doc.SetCreationDate(pdfDate)
	doc.SetModificationDate(pdfDate)
	doc.SetCatalogSort(true)
	doc.SetMargins(0, 0, 0)
	doc.SetAutoPageBreak(false, 0)
	doc.AddPage()
	doc.TransformBegin() // fpdf writes matrices only inside a saved state
	c := &pdfCanvas{doc: doc, w: w, h: h, fonts: map[*sfnt.Font]string{}, width: 1}
	c.SetColor(color.Black)
	c.SetLineWidth(1)
	return c
}

func (c *pdfCanvas) Size() (w, h vg.Length) { return c.w, c.h }

func (c *pdfCanvas) SetLineWidth(w vg.Length) {
	c.width = w
	c.doc.SetLineWidth(max(w.Points(), 0))
}

func (c *pdfCanvas) SetLineDash(pattern []vg.Length, offset vg.Length) {
	d := make([]float64, len(pattern))
	for i, l := range pattern {
		d[i] = l.Points()
	}
	c.doc.SetDashPattern(d, offset.Points())
}

func (c *pdfCanvas) SetColor(col color.Color) {
	if col == nil {
		col = color.Black
	}
	n := color.NRGBAModel.Convert(col).(color.NRGBA)
	r, g, b := int(n.R), int(n.G), int(n.B)
	c.doc.SetDrawColor(r, g, b)
	c.doc.SetFillColor(r, g, b)
	c.doc.SetTextColor(r, g, b)
	c.doc.SetAlpha(float64(n.A)/0xff, "Normal")
}

// matrix multiplies the current transform by [a b c d e f] (PDF's cm).
func (c *pdfCanvas) matrix(a, b, cc, d, e, f float64) {
	c.doc.Transform(fpdf.TransformMatrix{A: a, B: b, C: cc, D: d, E: e, F: f})
}

func (c *pdfCanvas) Rotate(rad float64) {
	s, co := math.Sincos(rad)
	c.matrix(co, s, -s, co, 0, 0)
}

func (c *pdfCanvas) Translate(pt vg.Point) { c.matrix(1, 0, 0, 1, pt.X.Points(), pt.Y.Points()) }

func (c *pdfCanvas) Scale(x, y float64) { c.matrix(x, 0, 0, y, 0, 0) }

func (c *pdfCanvas) Push() {
	c.depth++
	c.saved = append(c.saved, c.width)
	c.doc.TransformBegin()
}

func (c *pdfCanvas) Pop() {
	if c.depth == 0 {
		return
	}
	c.depth--
	c.width = c.saved[len(c.saved)-1]
	c.saved = c.saved[:len(c.saved)-1]
	c.doc.TransformEnd()
}

func (c *pdfCanvas) Stroke(p vg.Path) {
	if c.width > 0 {
		c.path(p, "D")
	}
}

func (c *pdfCanvas) Fill(p vg.Path) { c.path(p, "F") }

// path writes p and paints it with fpdf's style ("D" strokes, "F" fills). Arcs
// become cubic Béziers of at most a quarter turn each.
func (c *pdfCanvas) path(p vg.Path, style string) {
	if len(p) == 0 {
		return
	}
	var start vg.Point // of the current subpath, where Close returns
	for _, comp := range p {
		switch comp.Type {
		case vg.MoveComp:
			start = comp.Pos
			c.doc.MoveTo(c.xy(comp.Pos))
		case vg.LineComp:
			c.doc.LineTo(c.xy(comp.Pos))
		case vg.CurveComp:
			x, y := c.xy(comp.Pos)
			switch len(comp.Control) {
			case 1:
				cx, cy := c.xy(comp.Control[0])
				c.doc.CurveTo(cx, cy, x, y)
			case 2:
				cx, cy := c.xy(comp.Control[0])
				dx, dy := c.xy(comp.Control[1])
				c.doc.CurveBezierCubicTo(cx, cy, dx, dy, x, y)
			}
		case vg.ArcComp:
			c.arc(comp)
		case vg.CloseComp:
			c.doc.LineTo(c.xy(start))
			c.doc.ClosePath()
		}
	}
	c.doc.DrawPath(style)
}

// arc draws an arc as a line to its start and Bézier segments of at most π/2, each
// with control points at the distance 4/3·tan(θ/4)·r from its ends.
func (c *pdfCanvas) arc(comp vg.PathComp) {
	at := func(a float64) vg.Point {
		s, co := math.Sincos(a)
		return vg.Point{X: comp.Pos.X + comp.Radius*vg.Length(co), Y: comp.Pos.Y + comp.Radius*vg.Length(s)}
	}
	c.doc.LineTo(c.xy(at(comp.Start)))
	n := max(1, int(math.Ceil(math.Abs(comp.Angle)/(math.Pi/2))))
	step := comp.Angle / float64(n)
	k := 4.0 / 3 * math.Tan(step/4) * float64(comp.Radius)
	for i := range n {
		a0, a1 := comp.Start+float64(i)*step, comp.Start+float64(i+1)*step
		p0, p1 := at(a0), at(a1)
		s0, c0 := math.Sincos(a0)
		s1, c1 := math.Sincos(a1)
		ctl0 := vg.Point{X: p0.X - vg.Length(k*s0), Y: p0.Y + vg.Length(k*c0)}
		ctl1 := vg.Point{X: p1.X + vg.Length(k*s1), Y: p1.Y - vg.Length(k*c1)}
		ax, ay := c.xy(ctl0)
		bx, by := c.xy(ctl1)
		x, y := c.xy(p1)
		c.doc.CurveBezierCubicTo(ax, ay, bx, by, x, y)
	}
}

// xy is a vg point in fpdf's coordinates (y down from the top).
func (c *pdfCanvas) xy(p vg.Point) (float64, float64) {
	return p.X.Points(), (c.h - p.Y).Points()
}

// FillString draws text with its baseline's left end at pt in the face's font,
// embedded in the document the first time it is used.
func (c *pdfCanvas) FillString(f font.Face, pt vg.Point, text string) {
	if f.Font.Size == 0 || text == "" {
		return
	}
	name, ok := c.fonts[f.Face]
	if !ok {
		var buf bytes.Buffer
		if _, err := f.Face.WriteSourceTo(nil, &buf); err != nil {
			panic(fmt.Errorf("figures: the font %s has no source: %w", f.Name(), err))
		}
		var b sfnt.Buffer
		ps, err := f.Face.Name(&b, sfnt.NameIDPostScript) // the name a reader lists: DejaVuSans-Oblique
		if err != nil || ps == "" {
			ps = fmt.Sprintf("F%d", len(c.fonts)+1)
		}
		name = ps
		c.doc.AddUTF8FontFromBytes(name, "", buf.Bytes())
		c.fonts[f.Face] = name
	}
	c.doc.SetFont(name, "", f.Font.Size.Points())
	x, y := c.xy(pt)
	c.doc.Text(x, y, text)
}

// DrawImage draws img scaled into rect, its first row at the top.
func (c *pdfCanvas) DrawImage(rect vg.Rectangle, img image.Image) {
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		panic(fmt.Errorf("figures: an image for the PDF: %w", err))
	}
	c.nimg++
	name := fmt.Sprintf("image%d", c.nimg)
	opts := fpdf.ImageOptions{ImageType: "PNG"}
	c.doc.RegisterImageOptionsReader(name, opts, &buf)
	x, y := c.xy(vg.Point{X: rect.Min.X, Y: rect.Max.Y})
	c.doc.ImageOptions(name, x, y, (rect.Max.X - rect.Min.X).Points(), (rect.Max.Y - rect.Min.Y).Points(), false, opts, 0, "")
}

// WriteTo closes the page and writes the PDF.
func (c *pdfCanvas) WriteTo(w io.Writer) (int64, error) {
	for c.depth > 0 {
		c.Pop()
	}
	c.doc.TransformEnd()
	var buf bytes.Buffer
	if err := c.doc.Output(&buf); err != nil {
		return 0, fmt.Errorf("figures: pdf: %w", err)
	}
	return buf.WriteTo(w)
}
