package web

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"

	"unroll/data"
	"unroll/lessons"
	"unroll/sim"
)

// Size of an exported plot: a 16:9 slide figure; at plotDPI the PNG is 1600×900 px.
const (
	plotWidth  = 8 * vg.Inch
	plotHeight = 4.5 * vg.Inch
	plotDPI    = 200 // 8 in × 200 dpi = 1600 px, sharp on a projector
)

// Layout of an exported plot.
const (
	plotMargin     = vg.Inch / 6 // white space around the figure, so nothing touches the slide edge
	legendHeadroom = 0.18        // fraction of the y range added on top, where the legend goes (at least)
	// legendInset lowers a legend that reaches under the title, so the two never touch
	// (a viewer without the Liberation fonts draws an SVG's text wider than measured).
	legendInset = 8             // points
	legendGap   = vg.Length(10) // points between a scatter and the legend beside it
)

// Ticks of an axis of whole numbers (steps, positions, k, n, min_freq).
const (
	// maxWholeLabels is how many whole-number ticks are labelled at most: up to 7 every
	// one is, beyond that every 2nd, 5th, 10th … so the labels never crowd.
	maxWholeLabels = 7
	// minWholeSpan: an axis is read as whole numbers only when it spans at least three
	// of them; on [0, 1] (a precision that happens to be 0 or 1) decimals say more.
	minWholeSpan  = 2
	maxMinorTicks = 60 // unlabelled ticks at whole numbers between the labels, if no more
)

// logTicks marks a log axis with powers of ten, or with ordinary ticks when the data
// spans less than a decade (plot.LogTicks would then label nothing).
type logTicks struct{}

func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.LogTicks{Prec: -1}.Ticks(lo, hi)
	labelled := 0
	for _, t := range ticks {
		if t.Label != "" {
			labelled++
		}
	}
	if labelled >= 2 {
		for i, t := range ticks { // LogTicks labels 1e-4 as 9.999999999999998e-05
			if t.Label != "" {
				ticks[i].Label = strconv.FormatFloat(t.Value, 'g', 3, 64)
			}
		}
		return ticks
	}
	var out []plot.Tick
	for _, t := range (plot.DefaultTicks{}).Ticks(lo, hi) {
		if t.Value > 0 {
			out = append(out, t)
		}
	}
	return out
}

// linearTicks are plot.DefaultTicks with labels precise enough to tell apart:
// DefaultTicks can label −2.95 and −3 both "-3" on a narrow range.
type linearTicks struct{}

func (linearTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(lo, hi)
	for decimals := 1; !distinctLabels(ticks) && decimals <= 12; decimals++ {
		for i, t := range ticks {
			if t.Label != "" {
				ticks[i].Label = strconv.FormatFloat(t.Value, 'f', decimals, 64)
			}
		}
	}
	return ticks
}

// wholeTicks mark an axis of whole numbers: a tick at each whole number, all labelled
// when there are at most maxWholeLabels, else labels every 1, 2 or 5 × 10^k so that
// at most maxWholeLabels are, with unlabelled ticks between the first and the last
// label. Never "17.50".
type wholeTicks struct{}

func (wholeTicks) Ticks(lo, hi float64) []plot.Tick {
	first, last := math.Ceil(lo), math.Floor(hi)
	if first > last {
		return linearTicks{}.Ticks(lo, hi)
	}
	count := func(step float64) float64 { return math.Floor(last/step) - math.Ceil(first/step) + 1 }
	step, minor := 1.0, 0.0
	for mag := 1.0; count(step) > maxWholeLabels; mag *= 10 {
		for _, m := range []float64{1, 2, 5} {
			if step = m * mag; count(step) <= maxWholeLabels {
				minor = mag // 2 and 5 × 10^k: minor ticks at 10^k
				if m == 1 && mag > 1 {
					minor = mag / 5 // 10^k: at 2 × 10^(k−1)
				}
				break
			}
		}
	}
	var ticks []plot.Tick
	lo1, hi1 := math.Ceil(first/step)*step, math.Floor(last/step)*step // the first and last labels
	for v := lo1; v <= hi1; v += step {
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', 0, 64)})
	}
	if minor >= 1 && (hi1-lo1)/minor <= maxMinorTicks {
		for v := lo1 + minor; v < hi1; v += minor {
			if math.Mod(v, step) != 0 {
				ticks = append(ticks, plot.Tick{Value: v})
			}
		}
	}
	return ticks
}

// wholeAxis reports whether an axis shows whole numbers: it spans at least
// minWholeSpan, and some series's values on it are all whole and not all equal
// (steps, positions, a count). Other series may fall between those numbers (the
// expected source position next to the most attended one) and still read against
// whole ticks.
func wholeAxis(values [][]float64, lo, hi float64) bool {
	if hi-lo < minWholeSpan {
		return false
	}
	for _, vs := range values {
		whole, varied := len(vs) > 0, false
		for _, v := range vs {
			whole = whole && v == math.Trunc(v) && !math.IsInf(v, 0)
			varied = varied || v != vs[0]
		}
		if whole && varied {
			return true
		}
	}
	return false
}

// distinctLabels reports whether no two labelled ticks share a label.
func distinctLabels(ticks []plot.Tick) bool {
	seen := map[string]bool{}
	for _, t := range ticks {
		if t.Label != "" {
			if seen[t.Label] {
				return false
			}
			seen[t.Label] = true
		}
	}
	return true
}

// okabeIto is the Okabe–Ito palette, distinguishable with every common colour-vision
// deficiency, in the order curves use it (yellow last: faint on white).
var okabeIto = []color.RGBA{
	{0x00, 0x72, 0xB2, 0xFF}, // blue
	{0xE6, 0x9F, 0x00, 0xFF}, // orange
	{0x00, 0x9E, 0x73, 0xFF}, // bluish green
	{0xD5, 0x5E, 0x00, 0xFF}, // vermillion
	{0xCC, 0x79, 0xA7, 0xFF}, // reddish purple
	{0x56, 0xB4, 0xE9, 0xFF}, // sky blue
	{0x00, 0x00, 0x00, 0xFF}, // black
	{0xF0, 0xE4, 0x42, 0xFF}, // yellow
}

// dashes tell curves apart in greyscale print, and where two curves coincide (the
// bound of an identity RNN is met exactly): curve i uses pattern i mod 3.
var dashes = [][]vg.Length{nil, {vg.Points(6), vg.Points(3)}, {vg.Points(2), vg.Points(2)}}

// plotFormats maps an export's file extension to its Content-Type.
var plotFormats = map[string]string{
	"png": "image/png",
	"svg": "image/svg+xml",
	"pdf": "application/pdf",
}

// plotExport serves GET /lessons/{slug}/plots/{plot}.{png|svg|pdf}?{page query}: the
// plot drawn for the model the query describes.
func (s *Server) plotExport(w http.ResponseWriter, r *http.Request) {
	l, ok := s.lessonOr404(w, r)
	if !ok {
		return
	}
	name, ext, _ := cutLast(r.PathValue("file"), ".")
	p, ok := findPlot(l, name)
	if !ok {
		names := make([]string, len(l.Plots))
		for i, p := range l.Plots {
			names[i] = p.Name
		}
		writeError(w, http.StatusNotFound, fmt.Sprintf("lesson %s has no plot %q; its plots are %s", l.Slug, name, strings.Join(names, ", ")))
		return
	}
	contentType, ok := plotFormats[ext]
	if !ok {
		writeError(w, http.StatusNotFound, fmt.Sprintf("plots are exported as .png, .svg or .pdf, not %q", ext))
		return
	}
	v, err := l.Params.Parse(r.URL.Query())
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	trained, err := trainedSteps(r.URL.Query(), l.MaxTrained)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	// The model is held while it trains and is drawn: it counts against the memory of
	// lesson runs, like a page's.
	cost := footprint(l, trained > 0)
	if !s.memory.take(cost) {
		writeError(w, http.StatusServiceUnavailable, "the server is full: it has no memory to draw this export now; try again in a minute")
		return
	}
	defer s.memory.give(cost)
	m, err := l.Build(v)
	if err == nil {
		// The model the page trained, trained again from the seed, in turns with every
		// page's training; it stops when the client goes.
		err = sim.Replay(r.Context(), s.sched, m, trained)
	}
	if ctxErr := r.Context().Err(); ctxErr != nil {
		writeError(w, http.StatusServiceUnavailable, "the request was cancelled while the model trained")
		return
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, strings.TrimPrefix(err.Error(), "sim: "))
		return
	}
	release, ok := s.acquire(w, r)
	if !ok {
		return
	}
	defer release()
	var body []byte
	if p.Grid != nil {
		body, err = renderGrid(p, p.Grid(m), ext)
	} else {
		body, err = renderPlot(p, p.Series(m), ext)
	}
	if err != nil {
		panic(err) // a bug: ServeHTTP logs it and answers 500
	}
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Content-Disposition", fmt.Sprintf(`inline; filename="%s-%s.%s"`, l.Slug, p.Name, ext))
	_, _ = w.Write(body)
}

// cutLast splits s around the last sep.
func cutLast(s, sep string) (before, after string, found bool) {
	if i := strings.LastIndex(s, sep); i >= 0 {
		return s[:i], s[i+len(sep):], true
	}
	return s, "", false
}

func findPlot(l *lessons.Lesson, name string) (lessons.Plot, bool) {
	for _, p := range l.Plots {
		if p.Name == name {
			return p, true
		}
	}
	return lessons.Plot{}, false
}

// Glyphs of a Points plot: a dot, and for the series after the palette's colours
// are used up, a ring around the point (a lesson puts a marked subset there, such as
// a word and its neighbours, drawn over the dots of the same points).
const (
	dotRadius  = 2.5 // points: small enough for 262 words to stay apart
	ringRadius = 5   // points: around a dot, with room for the dot's own colour
	ringWidth  = 1.5 // points: visible at a slide's distance
	// ringFirstColour makes the first ring series black (okabeIto[6]), which stands
	// out over dots of every colour.
	ringFirstColour = 6
)

// ringGlyph is draw.RingGlyph with a line ringWidth wide (RingGlyph's 0.5 pt
// disappears on a projector).
type ringGlyph struct{}

func (ringGlyph) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	c.SetLineStyle(draw.LineStyle{Color: sty.Color, Width: vg.Points(ringWidth)})
	var path vg.Path
	path.Move(vg.Point{X: pt.X + sty.Radius, Y: pt.Y})
	path.Arc(pt, sty.Radius, 0, 2*math.Pi)
	path.Close()
	c.Stroke(path)
}

// addPoints draws series i of a Points plot: a dot per point in colour c (once i has
// gone through the palette, a ring, in another colour of the palette), the series in
// the legend, and the points' labels (those that are not "") beside them.
func addPoints(pl *plot.Plot, s lessons.Series, pts plotter.XYs, c color.RGBA, i int) error {
	dots, err := plotter.NewScatter(pts)
	if err != nil {
		return err
	}
	dots.GlyphStyle.Color = c
	dots.GlyphStyle.Shape = draw.CircleGlyph{}
	dots.GlyphStyle.Radius = vg.Points(dotRadius)
	offset := vg.Points(3)
	if i >= len(okabeIto) {
		dots.GlyphStyle.Color = okabeIto[(i+ringFirstColour)%len(okabeIto)]
		dots.GlyphStyle.Shape = ringGlyph{}
		dots.GlyphStyle.Radius = vg.Points(ringRadius)
		offset = vg.Points(ringRadius + 1)
	}
	pl.Add(dots)
	pl.Legend.Add(s.Label, dots)
	var labelled plotter.XYLabels
	for j, l := range s.Labels {
		if l != "" && j < len(s.X) && j < len(s.Y) {
			labelled.XYs = append(labelled.XYs, plotter.XY{X: s.X[j], Y: s.Y[j]})
			labelled.Labels = append(labelled.Labels, l)
		}
	}
	if len(labelled.Labels) == 0 {
		return nil
	}
	labels, err := plotter.NewLabels(labelled)
	if err != nil {
		return err
	}
	for j := range labels.TextStyle {
		labels.TextStyle[j].Font.Size = vg.Points(7)
		labels.TextStyle[j].Color = color.RGBA{0x1d, 0x24, 0x30, 0xff}
		labels.TextStyle[j].XAlign = draw.XLeft
	}
	labels.Offset = vg.Point{X: offset, Y: vg.Points(1)}
	pl.Add(labels)
	return nil
}

// renderPlot draws series as lines (as labelled points when p.Points) with p's title
// and axis labels (log y when p.LogY: points with y ≤ 0 cannot be drawn there and are
// left out) in the given format.
func renderPlot(p lessons.Plot, series []lessons.Series, format string) ([]byte, error) {
	pl := plot.New()
	pl.Title.Text = p.Title
	pl.X.Label.Text = p.XLabel
	pl.Y.Label.Text = p.YLabel
	pl.Legend.Top = true
	pl.Title.TextStyle.Font.Size = vg.Points(14)
	pl.X.Tick.Marker, pl.Y.Tick.Marker = linearTicks{}, linearTicks{}
	if p.LogY {
		pl.Y.Scale = plot.LogScale{}
		pl.Y.Tick.Marker = logTicks{}
	}
	pl.Add(plotter.NewGrid())
	var legend []string // the labels in the legend, in order
	var xs, ys [][]float64
	for i, s := range series {
		pts := make(plotter.XYs, 0, len(s.Y))
		for j := range min(len(s.X), len(s.Y)) {
			x, y := s.X[j], s.Y[j]
			if math.IsNaN(x) || math.IsInf(x, 0) || math.IsNaN(y) || math.IsInf(y, 0) || (p.LogY && y <= 0) {
				continue
			}
			pts = append(pts, plotter.XY{X: x, Y: y})
		}
		if len(pts) == 0 {
			continue
		}
		x, y := make([]float64, len(pts)), make([]float64, len(pts))
		for j, pt := range pts {
			x[j], y[j] = pt.X, pt.Y
		}
		xs, ys = append(xs, x), append(ys, y)
		legend = append(legend, s.Label)
		if p.Points {
			if err := addPoints(pl, s, pts, okabeIto[i%len(okabeIto)], i); err != nil {
				return nil, err
			}
			continue
		}
		line, err := plotter.NewLine(pts)
		if err != nil {
			return nil, err
		}
		line.Color = okabeIto[i%len(okabeIto)]
		line.Width = vg.Points(2)
		line.Dashes = dashes[i%len(dashes)]
		pl.Add(line)
		pl.Legend.Add(s.Label, line)
	}
	if len(legend) == 0 { // an empty log axis has no range: give it one
		pl.Y.Min, pl.Y.Max = 1, 10
		pl.X.Min, pl.X.Max = 0, 1
	}
	if p.LogY && pl.Y.Min >= pl.Y.Max {
		// Every point at one height (bptt with truncation 1: only step T, at 1). gonum would
		// widen the range to [y−1, y+1], which reaches 0 on a log axis: widen it by a decade.
		pl.Y.Min, pl.Y.Max = pl.Y.Min/math.Sqrt(10), pl.Y.Max*math.Sqrt(10)
	}
	if wholeAxis(xs, pl.X.Min, pl.X.Max) {
		pl.X.Tick.Marker = wholeTicks{}
	}
	return drawExport(format, func(c draw.Canvas) {
		if p.Points && len(legend) > 0 {
			// A scatter fills its whole area: its legend goes beside it, not over the points.
			leg := pl.Legend
			pl.Legend = plot.NewLegend()
			var width vg.Length
			for _, l := range legend {
				width = max(width, leg.ThumbnailWidth+leg.TextStyle.Width(" "+l))
			}
			main, side := c, c
			main.Max.X -= width + legendGap
			side.Min.X = main.Max.X + legendGap
			side.Max.Y -= pl.Title.TextStyle.FontExtents().Height + legendGap // below the title's line
			pl.Draw(main)
			leg.Draw(side)
			return
		}
		makeLegendRoom(pl, c, legend, p.LogY)
		if !p.LogY && wholeAxis(ys, pl.Y.Min, pl.Y.Max) {
			pl.Y.Tick.Marker = wholeTicks{}
		}
		pl.Draw(c)
	})
}

// makeLegendRoom adds headroom above the curves for the legend at the top right:
// legendHeadroom of the y range, or more when the legend's rows need it, so no curve
// runs through the legend. A legend wide enough to reach under the title is lowered
// by legendInset, and the headroom grows by as much.
func makeLegendRoom(pl *plot.Plot, c draw.Canvas, labels []string, logY bool) {
	sty := pl.Legend.TextStyle
	var width vg.Length
	for _, l := range labels {
		width = max(width, pl.Legend.ThumbnailWidth+sty.Width(" "+l))
	}
	titleRight := (c.Min.X+c.Max.X)/2 + pl.Title.TextStyle.Width(pl.Title.Text)/2
	var inset vg.Length
	if len(labels) > 0 && c.Max.X-width < titleRight+vg.Points(legendInset) {
		inset = vg.Points(legendInset)
		pl.Legend.YOffs = -inset
	}
	rows := vg.Length(len(labels))
	need := rows*sty.FontExtents().Height + max(0, rows-1)*pl.Legend.Padding + inset
	dc := pl.DataCanvas(c)
	share := float64(need / (dc.Max.Y - dc.Min.Y)) // of the data area's height
	headroom := max(legendHeadroom, share/(1-min(share, 0.5)))
	if logY {
		pl.Y.Max *= math.Pow(pl.Y.Max/pl.Y.Min, headroom)
	} else {
		pl.Y.Max += headroom * (pl.Y.Max - pl.Y.Min)
	}
}

// drawExport draws a figure with draw onto a plotWidth × plotHeight canvas in the
// given format, inside a white margin, and returns the file.
func drawExport(format string, drawFigure func(draw.Canvas)) ([]byte, error) {
	var canvas interface {
		vg.CanvasSizer
		io.WriterTo
	}
	switch format {
	case "png":
		canvas = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(plotWidth, plotHeight), vgimg.UseDPI(plotDPI), vgimg.UseBackgroundColor(color.White))}
	case "svg":
		canvas = vgsvg.New(plotWidth, plotHeight)
	case "pdf":
		canvas = vgpdf.New(plotWidth, plotHeight)
	default:
		return nil, fmt.Errorf("web: unknown plot format %q", format)
	}
	drawFigure(draw.Crop(draw.New(canvas), plotMargin, -plotMargin, plotMargin, -plotMargin))
	var buf bytes.Buffer
	if _, err := canvas.WriteTo(&buf); err != nil {
		return nil, err
	}
	if format == "svg" {
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

// viridis returns the sequential colour scale of the pages' heatmaps
// (static/js/colors.js), a new one each call: SetMin and SetMax change it.
func viridis() palette.ColorMap {
	var stops []color.Color
	for _, hex := range []uint32{0x440154, 0x472d7b, 0x3b528b, 0x2c728e, 0x21918c, 0x28ae80, 0x5ec962, 0xaddc30, 0xfde725} {
		stops = append(stops, color.RGBA{uint8(hex >> 16), uint8(hex >> 8), uint8(hex), 0xff})
	}
	cm, err := moreland.NewLuminance(stops)
	if err != nil {
		panic(err) // the stops rise in luminance
	}
	return cm
}

// gridXYZ is a lessons.Grid as gonum's grid: column c at x = c, row r at y = −r, so
// the first row is at the top.
type gridXYZ struct{ g lessons.Grid }

func (g gridXYZ) Dims() (c, r int)   { return len(g.g.Cols), len(g.g.Rows) }
func (g gridXYZ) Z(c, r int) float64 { return g.g.Values[r][c] }
func (g gridXYZ) X(c int) float64    { return float64(c) }
func (g gridXYZ) Y(r int) float64    { return -float64(r) }

// renderGrid draws a heatmap with labelled rows and columns and a colour bar on the
// right, on the grid's fixed scale, in the given format.
func renderGrid(p lessons.Plot, g lessons.Grid, format string) ([]byte, error) {
	cm := viridis()
	cm.SetMin(g.Lo)
	cm.SetMax(g.Hi)
	pl := plot.New()
	pl.Title.Text = p.Title
	pl.Title.TextStyle.Font.Size = vg.Points(14)
	pl.X.Label.Text = p.XLabel
	pl.Y.Label.Text = p.YLabel
	if len(g.Rows) == 0 || len(g.Cols) == 0 {
		pl.X.Min, pl.X.Max, pl.Y.Min, pl.Y.Max = 0, 1, 0, 1
	} else {
		hm := plotter.NewHeatMap(gridXYZ{g}, cm.Palette(256))
		hm.Min, hm.Max = g.Lo, g.Hi
		pl.Add(hm)
		var xt, yt []plot.Tick
		for c, l := range g.Cols {
			xt = append(xt, plot.Tick{Value: float64(c), Label: strings.ReplaceAll(l, data.SpaceToken, "·")}) // the PDF fonts have no ␣
		}
		for r, l := range g.Rows {
			yt = append(yt, plot.Tick{Value: -float64(r), Label: l})
		}
		pl.X.Tick.Marker, pl.Y.Tick.Marker = plot.ConstantTicks(xt), plot.ConstantTicks(yt)
	}
	bar := plot.New()
	bar.HideX()
	bar.Y.Padding = 0
	bar.Add(&plotter.ColorBar{ColorMap: cm, Vertical: true})
	bar.Y.Tick.Marker = linearTicks{}
	const barWidth = vg.Inch * 0.9
	return drawExport(format, func(c draw.Canvas) {
		main, side := c, c
		main.Max.X -= barWidth
		side.Min.X = main.Max.X + vg.Inch*0.2
		side.Min.Y += vg.Inch * 0.53 // level with the heatmap: above the x axis, below the title
		side.Max.Y -= vg.Inch * 0.22
		pl.Draw(main)
		bar.Draw(side)
	})
}
