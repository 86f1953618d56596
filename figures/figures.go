// Package figures draws the slide-ready exports of the lessons' plots with gonum/plot:
// curves, labelled points and heatmaps, as PNG, SVG or PDF files of one fixed size.
// It knows nothing of HTTP or of lessons: a caller describes a Figure (titles, axes and
// its Series or its Grid) and gets back the file's bytes.
package figures

import (
	"bytes"
	"fmt"
	"image"
	"io"
	"math"
	"strings"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Size of a figure: 8 inches wide (576 points), as high as its slide's shape needs;
// a PNG is Options.Width pixels wide, so its resolution is Width / 8 dots per inch and
// every length, text included, scales with the width.
const figureWidth = 8 * vg.Inch

// Widths of a PNG export, in pixels.
const (
	DefaultWidth = 1920 // a full-HD projector shows it pixel for pixel
	MinWidth     = 640  // narrower, 10-point tick labels fall under 11 px and blur
	MaxWidth     = 3840 // a 4K projector's width: an RGBA canvas of 33 MB (16:9) to 44 MB (4:3) while it is drawn
)

// Slide is the shape of the slide a figure fills, width:height.
type Slide string

// The slide shapes.
const (
	Wide     Slide = "16:9" // the default
	Standard Slide = "4:3"
)

// slideHeights is each shape's height for a figure figureWidth wide.
var slideHeights = map[Slide]vg.Length{Wide: figureWidth * 9 / 16, Standard: figureWidth * 3 / 4}

// ParseSlide returns the slide shape s names ("16:9" or "4:3"), and whether it names one.
func ParseSlide(s string) (Slide, bool) {
	_, ok := slideHeights[Slide(s)]
	return Slide(s), ok
}

// Theme is the colours of a figure's background, text and axes.
type Theme string

// The themes.
const (
	Light Theme = "light" // the default: dark text on white
	Dark  Theme = "dark"  // light text on a near-black slide
)

// ParseTheme returns the theme s names ("light" or "dark"), and whether it names one.
func ParseTheme(s string) (Theme, bool) {
	_, ok := themeColours[Theme(s)]
	return Theme(s), ok
}

// Options are how a figure is drawn: the slide's shape, the theme and, for a PNG,
// the width in pixels. The zero Options are a 16:9, light, DefaultWidth figure.
type Options struct {
	Slide Slide
	Theme Theme
	Width int // pixels, PNG only (SVG and PDF are vector drawings): MinWidth to MaxWidth
}

// withDefaults fills in the zero fields and checks the rest.
func (o Options) withDefaults() (Options, error) {
	if o.Slide == "" {
		o.Slide = Wide
	}
	if o.Theme == "" {
		o.Theme = Light
	}
	if o.Width == 0 {
		o.Width = DefaultWidth
	}
	if _, ok := slideHeights[o.Slide]; !ok {
		return o, fmt.Errorf("figures: no slide shape %q", o.Slide)
	}
	if _, ok := themeColours[o.Theme]; !ok {
		return o, fmt.Errorf("figures: no theme %q", o.Theme)
	}
	if o.Width < MinWidth || o.Width > MaxWidth {
		return o, fmt.Errorf("figures: a width of %d px is outside %d to %d", o.Width, MinWidth, MaxWidth)
	}
	return o, nil
}

// CanvasBytes is the memory a drawing in the given format with options o holds in
// its canvas: a PNG's RGBA pixels (33 MB at 3840 px and 16:9); a vector drawing's
// canvas is small beside the model it draws, so 0.
func CanvasBytes(format Format, o Options) int {
	o, err := o.withDefaults()
	if format != PNG || err != nil {
		return 0
	}
	w, h := o.size()
	return 4 * o.Width * int(math.Round(float64(o.Width)*float64(h/w)))
}

// size is the figure's size in points.
func (o Options) size() (w, h vg.Length) { return figureWidth, slideHeights[o.Slide] }

// dpi is the PNG's resolution: Width pixels across figureWidth.
func (o Options) dpi() float64 { return float64(o.Width) / (figureWidth.Points() / 72) }

// figureMargin is the white space around a figure, so nothing touches the slide edge.
const figureMargin = vg.Inch / 6

// Format is the file format of a drawn figure, named by its file extension.
type Format string

// The formats a figure is drawn in.
const (
	PNG Format = "png"
	SVG Format = "svg"
	PDF Format = "pdf"
)

// contentTypes maps each format to its media type.
var contentTypes = map[Format]string{
	PNG: "image/png",
	SVG: "image/svg+xml",
	PDF: "application/pdf",
}

// ParseFormat returns the format a file extension ("png", "svg", "pdf") names, and
// whether it names one.
func ParseFormat(ext string) (Format, bool) {
	f := Format(ext)
	_, ok := contentTypes[f]
	return f, ok
}

// ContentType is the format's media type, e.g. "image/svg+xml"; "" for an unknown format.
func (f Format) ContentType() string { return contentTypes[f] }

// Figure describes one figure: its title and axis labels, and what it shows: the
// curves (or points) of Series, or the heatmap of Grid when Grid is set.
type Figure struct {
	// Title, XLabel, YLabel and the series' labels are Unicode text with inline
	// maths in \( … \), typeset by mathText: `\(\|\partial L/\partial H_t\|\)`.
	Title  string
	XLabel string
	YLabel string
	// LogY draws Series on a log y axis: points with y ≤ 0 cannot be drawn there and
	// are left out.
	LogY bool
	// YScale, when set, is the y axis's fixed range [lo, hi] (a page panel's Scale);
	// otherwise the axis fits the data.
	YScale []float64
	// Points draws each series as dots, labelled by Series.Labels, instead of a line;
	// the legend goes beside the scatter.
	Points bool
	Series []Series
	// XRange fixes the x axis to [lo, hi]: a page's whole time axis (nil: from the data).
	XRange []float64
	// Now marks the current step: a vertical line at x = Now on curves (0: none).
	Now float64
	// Grid, when set, is drawn as a heatmap with a colour bar instead of Series.
	Grid *Grid
	// Bars, when set, is drawn as a bar chart instead of Series.
	Bars *Bars
	// Tables, when set, are drawn one under the other instead (table.go).
	Tables []Table
	// Diagram, when set, is drawn instead (diagram.go).
	Diagram *Diagram
	// Scene, when set, is drawn instead: a picture of shapes on a grid (scene.go).
	Scene *Scene
}

// Series is one curve of a Figure (or one set of points). Points whose x or y is not
// finite are left out.
type Series struct {
	Label  string // in the legend
	X, Y   []float64
	Labels []string // optional, for Points figures: a label per point ("" for none)
	// Marker draws the series as a mark at each point whose y is not 0 (where BPTT
	// clipped), not as a line.
	Marker bool
}

// Grid is a heatmap: Values[r][c] coloured on the fixed scale [Lo, Hi] (the pages'
// viridis), rows labelled top to bottom and columns left to right, as given.
//
// A scale that runs from below 0 to above it is drawn with the diverging map (the
// pages' rule); a NaN cell (not computed yet, or a gap between blocks) is left blank.
type Grid struct {
	Rows, Cols []string
	Values     [][]float64
	Lo, Hi     float64
	// Mark frames column Mark−1, the current time step, and MarkRow row MarkRow−1,
	// the current step of a matrix that grows a row a step (0: none).
	Mark, MarkRow int
	// Hatched[c] draws column c hatched instead of filled: a column with no value on
	// purpose (BPTT's steps cut by truncation), told apart from one not computed yet
	// (blank) by pattern, not colour. The figure's axis label should say what it means.
	Hatched []bool
	// HatchedCells[r][c] draws one cell hatched: a value masked on purpose (a causal
	// mask's −∞ before the softmax, weight exactly 0), as the page draws it.
	HatchedCells [][]bool
}

// Draw draws the figure in the given format with the given options and returns the
// file. The same figure and options give the same bytes.
func Draw(f Figure, format Format, o Options) ([]byte, error) {
	o, paint, err := prepare(f, o)
	if err != nil {
		return nil, err
	}
	return encode(format, o, paint)
}

// prepare is the options with their defaults and the painter of figure f, once its
// text is known to typeset.
func prepare(f Figure, o Options) (Options, func(draw.Canvas), error) {
	o, err := o.withDefaults()
	if err != nil {
		return o, nil, err
	}
	if err := checkFigureText(f); err != nil {
		return o, nil, err
	}
	paint, err := painter(f, o)
	return o, paint, err
}

// painter is what draws figure f onto a canvas (inside its margin), with options o.
func painter(f Figure, o Options) (func(draw.Canvas), error) {
	switch {
	case f.Grid != nil:
		return drawHeatmap(f, *f.Grid, o)
	case f.Bars != nil:
		return drawBars(f, *f.Bars, o)
	case f.Tables != nil:
		return drawTables(f, o)
	case f.Diagram != nil:
		return drawDiagram(f, *f.Diagram, o)
	case f.Scene != nil:
		return drawScene(f, *f.Scene, o)
	}
	return drawCurves(f, o)
}

// checkFigureText reports the first title, label or legend entry of f that the
// figures' text cannot typeset.
func checkFigureText(f Figure) error {
	texts := []string{f.Title, f.XLabel, f.YLabel}
	for _, s := range f.Series {
		texts = append(texts, s.Label)
	}
	for _, t := range texts {
		if err := CheckText(t); err != nil {
			return err
		}
	}
	return nil
}

// encode draws a figure with drawFigure onto a canvas of the options' size in the
// given format, on the theme's background inside a margin, and returns the file.
func encode(format Format, o Options, drawFigure func(draw.Canvas)) ([]byte, error) {
	w, h := o.size()
	var canvas interface {
		vg.CanvasSizer
		io.WriterTo
	}
	switch format {
	case PNG:
		// Exactly Width pixels across; the resolution rounds to whole dots per inch, so
		// the canvas is within 1/16 in of figureWidth.
		canvas = vgimg.PngCanvas{Canvas: rasterCanvas(o)}
	case SVG:
		canvas = vgsvg.New(w, h)
	case PDF:
		canvas = newPDF(w, h)
	default:
		return nil, fmt.Errorf("figures: unknown format %q", format)
	}
	paintOn(canvas, o, drawFigure)
	var buf bytes.Buffer
	if _, err := canvas.WriteTo(&buf); err != nil {
		return nil, err
	}
	if format == SVG {
		return []byte(svgFontFallbacks.Replace(buf.String())), nil
	}
	return buf.Bytes(), nil
}

// rasterCanvas is a canvas exactly Width pixels across for the options' slide; the
// resolution rounds to whole dots per inch, so it is within 1/16 in of figureWidth.
func rasterCanvas(o Options) *vgimg.Canvas {
	w, h := o.size()
	img := image.NewRGBA(image.Rect(0, 0, o.Width, int(math.Round(float64(o.Width)*float64(h/w)))))
	return vgimg.NewWith(vgimg.UseImage(img), vgimg.UseDPI(int(math.Round(o.dpi()))))
}

// paintOn paints a figure on c: the theme's background, then the figure inside its
// margin.
func paintOn(c vg.CanvasSizer, o Options, paint func(draw.Canvas)) {
	dc := draw.New(c)
	dc.SetColor(themeColours[o.Theme].background)
	dc.Fill(dc.Rectangle.Path())
	paint(draw.Crop(dc, figureMargin, -figureMargin, figureMargin, -figureMargin))
}

// svgFontFallbacks gives the SVG's fonts fallbacks where DejaVu is not installed:
// Verdana, drawn by the same designer as DejaVu's parent Bitstream Vera, is about as
// wide, so the text keeps roughly the width gonum measured. Embedding the fonts
// instead (vgsvg.EmbedFonts) would make each SVG about 30 times larger.
var svgFontFallbacks = strings.NewReplacer(
	"font-family:DejaVu Sans;", `font-family:'DejaVu Sans',Verdana,'Bitstream Vera Sans',sans-serif;`,
)
