// Package figures draws the slide-ready exports of the lessons' plots with gonum/plot:
// curves, labelled points and heatmaps, as PNG, SVG or PDF files of one fixed size.
// It knows nothing of HTTP or of lessons: a caller describes a Figure (titles, axes and
// its Series or its Grid) and gets back the file's bytes.
package figures

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"strings"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Size of a figure: a 16:9 slide figure; at figureDPI the PNG is 1600×900 px.
const (
	figureWidth  = 8 * vg.Inch
	figureHeight = 4.5 * vg.Inch
	figureDPI    = 200 // 8 in × 200 dpi = 1600 px, sharp on a projector
)

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
	Title  string // plain Unicode, e.g. ‖∂L/∂H_t‖
	XLabel string
	YLabel string
	// LogY draws Series on a log y axis: points with y ≤ 0 cannot be drawn there and
	// are left out.
	LogY bool
	// Points draws each series as dots, labelled by Series.Labels, instead of a line;
	// the legend goes beside the scatter.
	Points bool
	Series []Series
	// Grid, when set, is drawn as a heatmap with a colour bar instead of Series.
	Grid *Grid
}

// Series is one curve of a Figure (or one set of points). Points whose x or y is not
// finite are left out.
type Series struct {
	Label  string // in the legend
	X, Y   []float64
	Labels []string // optional, for Points figures: a label per point ("" for none)
}

// Grid is a heatmap: Values[r][c] coloured on the fixed scale [Lo, Hi] (the pages'
// viridis), rows labelled top to bottom and columns left to right, as given (the
// PDF's fonts have no ␣: a label shows a space some other way).
type Grid struct {
	Rows, Cols []string
	Values     [][]float64
	Lo, Hi     float64
}

// Draw draws the figure in the given format and returns the file. The same figure
// gives the same bytes, except a PDF's creation date.
func Draw(f Figure, format Format) ([]byte, error) {
	if f.Grid != nil {
		return drawHeatmap(f, *f.Grid, format)
	}
	return drawCurves(f, format)
}

// encode draws a figure with drawFigure onto a figureWidth × figureHeight canvas in
// the given format, inside a white margin, and returns the file.
func encode(format Format, drawFigure func(draw.Canvas)) ([]byte, error) {
	var canvas interface {
		vg.CanvasSizer
		io.WriterTo
	}
	switch format {
	case PNG:
		canvas = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(figureWidth, figureHeight), vgimg.UseDPI(figureDPI), vgimg.UseBackgroundColor(color.White))}
	case SVG:
		canvas = vgsvg.New(figureWidth, figureHeight)
	case PDF:
		canvas = newPDF(figureWidth, figureHeight)
	default:
		return nil, fmt.Errorf("figures: unknown format %q", format)
	}
	drawFigure(draw.Crop(draw.New(canvas), figureMargin, -figureMargin, figureMargin, -figureMargin))
	var buf bytes.Buffer
	if _, err := canvas.WriteTo(&buf); err != nil {
		return nil, err
	}
	if format == SVG {
		return []byte(svgFontFallbacks.Replace(buf.String())), nil
	}
	return buf.Bytes(), nil
}

// svgFontFallbacks gives the SVG's fonts the metric-compatible fonts slide software
// has (Liberation Serif was drawn to Times New Roman's widths, Liberation Sans to
// Arial's), so text keeps the width gonum measured where Liberation is not installed.
// Embedding the fonts instead (vgsvg.EmbedFonts) would make each SVG about 30 times larger.
var svgFontFallbacks = strings.NewReplacer(
	"font-family:Liberation Serif;", `font-family:'Liberation Serif','Times New Roman',Times,serif;`,
	"font-family:Liberation Sans;", `font-family:'Liberation Sans',Arial,Helvetica,sans-serif;`,
)
