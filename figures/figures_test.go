package figures

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math"
	"reflect"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"
	"gonum.org/v1/plot/vg/vgsvg"
)

func mustDraw(t *testing.T, f Figure, format Format) []byte {
	t.Helper()
	b, err := Draw(f, format, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestDrawDeterministic: the same series give the same image, and a log axis
// survives curves that are zero everywhere.
func TestDrawDeterministic(t *testing.T) {
	f := Figure{Title: `\(\|\partial L/\partial H_t\|\)`, XLabel: "t", YLabel: "norm", LogY: true,
		Series: []Series{{Label: "a", X: []float64{1, 2, 3}, Y: []float64{1, 1e-3, 1e-6}}}}
	a, err := Draw(f, PNG, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Draw(f, PNG, Options{})
	if !bytes.Equal(a, b) {
		t.Errorf("two drawings of the same figure differ")
	}
	if a, b := mustDraw(t, f, PDF), mustDraw(t, f, PDF); !bytes.Equal(a, b) {
		t.Errorf("two PDFs of the same figure differ (a date, or the fonts' order)")
	}
	f.Series = []Series{{Label: "zero", X: []float64{1}, Y: []float64{0}}}
	if _, err := Draw(f, SVG, Options{}); err != nil {
		t.Errorf("all-zero log figure: %v", err)
	}
}

// TestDrawHeatmap: a heatmap is a 1600 px PNG whose cells take the ends of the
// fixed scale (viridis #440154 at Lo, #fde725 at Hi), the same every time; an empty
// grid still draws.
func TestDrawHeatmap(t *testing.T) {
	f := Figure{Title: `attention weights \(\alpha_{t'j}\)`, XLabel: "source", YLabel: "output",
		Grid: &Grid{Rows: []string{"ils", "<eos>"}, Cols: []string{"they", "·", "."}, Values: [][]float64{{0, 1, 0}, {0, 0, 0}}, Lo: 0, Hi: 1}}
	a, err := Draw(f, PNG, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := Draw(f, PNG, Options{}); !bytes.Equal(a, b) {
		t.Errorf("two drawings of the same grid differ")
	}
	img, err := png.Decode(bytes.NewReader(a))
	if err != nil {
		t.Fatal(err)
	}
	if w := img.Bounds().Dx(); w < 1600 {
		t.Errorf("got a PNG %d px wide, want ≥ 1600", w)
	}
	near := func(c color.Color, hex uint32) bool {
		r, gr, b, _ := c.RGBA()
		d := func(x uint32, want uint32) bool { return max(x>>8, want)-min(x>>8, want) <= 6 }
		return d(r, hex>>16&0xff) && d(gr, hex>>8&0xff) && d(b, hex&0xff)
	}
	var lo, hi int
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y += 2 {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x += 2 {
			switch c := img.At(x, y); {
			case near(c, 0x440154):
				lo++
			case near(c, 0xfde725):
				hi++
			}
		}
	}
	if hi < 5000 || lo < 4*hi { // one cell of six at Hi, five at Lo, in a ~1200×550 px grid
		t.Errorf("sampled %d pixels of the Lo colour and %d of the Hi colour, want ≥ 5000 at Hi and 5 times that at Lo", lo, hi)
	}
	f.Grid = &Grid{Lo: 0, Hi: 1}
	for _, format := range []Format{SVG, PDF} {
		if _, err := Draw(f, format, Options{}); err != nil {
			t.Errorf("empty grid as %s: %v", format, err)
		}
	}
}

// TestLegendClearsTitle: a legend wide enough to reach under the title is lowered,
// and the headroom grows with its rows; a short legend stays where it was.
func TestLegendClearsTitle(t *testing.T) {
	c := draw.New(vgsvg.New(figureWidth, slideHeights[Wide]))
	short, long := plot.New(), plot.New()
	for _, pl := range []*plot.Plot{short, long} {
		pl.Title.Text = "where the decoder looks: source position per output step t'"
		pl.Y.Min, pl.Y.Max = 0, 10
	}
	makeLegendRoom(short, c, []string{"a"}, false)
	labels := []string{"argmax_j α_t'j (the most attended source position)", "Σ_j j α_t'j (the expected source position)", "third", "fourth", "fifth", "sixth"}
	makeLegendRoom(long, c, labels, false)
	if short.Legend.YOffs != 0 || short.Y.Max != 10*(1+legendHeadroom) {
		t.Errorf("short legend: offset %v, y max %v, want 0 and %v", short.Legend.YOffs, short.Y.Max, 10*(1+legendHeadroom))
	}
	if long.Legend.YOffs >= 0 || long.Y.Max <= short.Y.Max {
		t.Errorf("six wide rows: offset %v, y max %v, want it lowered and more headroom than %v", long.Legend.YOffs, long.Y.Max, short.Y.Max)
	}
}

// TestDrawPoints: a Points figure (the embeddings map) draws dots and the non-empty
// labels, deterministically, in every format.
func TestDrawPoints(t *testing.T) {
	f := Figure{Title: "map", XLabel: "PC1", YLabel: "PC2", Points: true}
	f.Series = []Series{
		{Label: "pronoun", X: []float64{-1, -0.8}, Y: []float64{0.2, 0.3}, Labels: []string{"he", "she"}},
		{Label: "verb", X: []float64{0.5, 0.7}, Y: []float64{-0.1, 0}, Labels: []string{"", "drinks"}},
	}
	svg, err := Draw(f, SVG, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{">he<", ">she<", ">drinks<", ">pronoun<", ">verb<"} {
		if !strings.Contains(string(svg), want) {
			t.Errorf("SVG: got no text %s", want)
		}
	}
	a, err := Draw(f, PNG, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Draw(f, PNG, Options{})
	if !bytes.Equal(a, b) {
		t.Errorf("two drawings of the same points figure differ")
	}
	if _, err := Draw(f, PDF, Options{}); err != nil {
		t.Errorf("pdf: %v", err)
	}
}

// TestFormats: the three formats are parsed from their extensions and give their
// media types and files; anything else is refused.
func TestFormats(t *testing.T) {
	f := Figure{Title: "t", Series: []Series{{Label: "a", X: []float64{1, 2}, Y: []float64{3, 4}}}}
	for _, tc := range []struct{ ext, contentType, prefix string }{
		{"png", "image/png", "\x89PNG"},
		{"svg", "image/svg+xml", "<?xml"},
		{"pdf", "application/pdf", "%PDF"},
	} {
		format, ok := ParseFormat(tc.ext)
		if !ok || format.ContentType() != tc.contentType {
			t.Errorf("%s: got %q, %v, want %s", tc.ext, format.ContentType(), ok, tc.contentType)
			continue
		}
		body, err := Draw(f, format, Options{})
		if err != nil || !strings.HasPrefix(string(body), tc.prefix) {
			t.Errorf("%s: got %.20q, %v, want a file starting %q", tc.ext, body, err, tc.prefix)
		}
	}
	for _, ext := range []string{"gif", "", "PNG"} {
		if _, ok := ParseFormat(ext); ok {
			t.Errorf("ParseFormat(%q) accepted it", ext)
		}
	}
	if _, err := Draw(f, Format("gif"), Options{}); err == nil {
		t.Errorf("Draw as gif: no error")
	}
}

// TestSVGFontFallbacks: an SVG names the metric-compatible fonts after Liberation's.
func TestSVGFontFallbacks(t *testing.T) {
	body, err := Draw(Figure{Title: "per step", XLabel: "t"}, SVG, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(body), "Verdana") || strings.Contains(string(body), "font-family:DejaVu Sans;") {
		t.Errorf("the SVG's text has no metric-compatible fallback font")
	}
}

// dark says whether a pixel is ink: luminance under half.
func dark(c color.Color) bool {
	r, g, b, _ := c.RGBA()
	return (299*r+587*g+114*b)/1000 < 0x8000
}

// inkBands are the runs of rows from y0 to y1 of img that have ink between columns
// x0 and x1, skipping the columns in skip, top to bottom.
func inkBands(img image.Image, x0, x1, y0, y1 int, skip map[int]bool) [][2]int {
	var bands [][2]int
	in := false
	for y := y0; y < y1; y++ {
		ink := false
		for x := x0; x < x1 && !ink; x++ {
			ink = !skip[x] && dark(img.At(x, y))
		}
		switch {
		case ink && !in:
			bands = append(bands, [2]int{y, y + 1})
		case ink:
			bands[len(bands)-1][1] = y + 1
		}
		in = ink
	}
	return bands
}

// titleInk is the height of a rendered figure's title: the first band of ink from
// the top across the middle half of the width (clear of the y axis and the legend).
func titleInk(img image.Image) int {
	w, h := img.Bounds().Dx(), img.Bounds().Dy()
	if b := inkBands(img, w/4, 3*w/4, 0, h, nil); len(b) > 0 {
		return b[0][1] - b[0][0]
	}
	return 0
}

// sizedRecorder records a drawing on a canvas of a given size.
type sizedRecorder struct {
	recorder.Canvas
	w, h vg.Length
}

func (r *sizedRecorder) Size() (vg.Length, vg.Length) { return r.w, r.h }

// drawnTexts records figure f's drawing with options o and returns the em size in
// pixels of each text drawn, at the PNG's resolution.
func drawnTexts(t *testing.T, f Figure, o Options) map[string]float64 {
	t.Helper()
	o, err := o.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	paint, err := painter(f, o)
	if err != nil {
		t.Fatal(err)
	}
	w, h := o.size()
	rec := &sizedRecorder{w: w, h: h}
	paint(draw.New(rec))
	px := map[string]float64{}
	for _, a := range rec.Actions {
		if fs, ok := a.(*recorder.FillString); ok {
			px[fs.String] = max(px[fs.String], fs.Size.Points()*o.dpi()/72)
		}
	}
	return px
}

// TestSlideTextSizes renders a figure at the presets' widths and measures its text:
// at 1920 px wide the title's ink is at least 28 px high (measured in the PNG) and
// the tick labels are drawn at least 20 px to the em (measured in a recording of the
// drawing), in proportion at other widths, on both slide shapes; the PNG has the
// width asked for and the shape's height.
func TestSlideTextSizes(t *testing.T) {
	const minTitlePx, minTickPx = 28, 20 // at 1920 px wide: readable from the back of a lecture room
	f := Figure{Title: "Hg per step", XLabel: "time step", YLabel: "value",
		Series: []Series{{Label: "a", X: []float64{1, 2, 3, 4}, Y: []float64{1, 3, 2, 4}}}}
	titles := map[int]int{}
	for _, tc := range []struct {
		width int
		slide Slide
		ratio float64
	}{{1920, Wide, 9.0 / 16}, {1920, Standard, 3.0 / 4}, {3840, Wide, 9.0 / 16}, {960, Wide, 9.0 / 16}} {
		body, err := Draw(f, PNG, Options{Slide: tc.slide, Width: tc.width})
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		w, h := img.Bounds().Dx(), img.Bounds().Dy()
		if w != tc.width || math.Abs(float64(h)-float64(w)*tc.ratio) > 1 {
			t.Errorf("%d px %s: got %d×%d px", tc.width, tc.slide, w, h)
			continue
		}
		title := titleInk(img)
		texts := drawnTexts(t, f, Options{Slide: tc.slide, Width: tc.width})
		ticks := math.Inf(1) // the smallest x tick label's em, in pixels
		for _, l := range []string{"1", "2", "3", "4"} {
			if px, ok := texts[l]; ok {
				ticks = min(ticks, px)
			}
		}
		scale := float64(tc.width) / 1920
		if float64(title) < minTitlePx*scale || float64(ticks) < minTickPx*scale {
			t.Errorf("%d px %s: the title's ink is %d px high and the tick labels' em %.1f px, want at least %.0f and %.0f", tc.width, tc.slide, title, ticks, minTitlePx*scale, minTickPx*scale)
		}
		t.Logf("%d px %s: the title's ink %d px high, the tick labels' em %.1f px", tc.width, tc.slide, title, ticks)
		if tc.slide == Wide {
			titles[tc.width] = title
		}
	}
	if r := float64(titles[3840]) / float64(titles[1920]); math.Abs(r-2) > 0.1 {
		t.Errorf("the title is %d px at 1920 px and %d px at 3840 px: want text that scales with the width", titles[1920], titles[3840])
	}
}

// TestOptions: the zero Options are the defaults, the dark theme darkens the
// background, and bad options are refused.
func TestOptions(t *testing.T) {
	f := Figure{Title: "t", Series: []Series{{Label: "a", X: []float64{1, 2}, Y: []float64{3, 4}}}}
	corner := func(o Options) color.Color {
		body, err := Draw(f, PNG, o)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if w := img.Bounds().Dx(); w != DefaultWidth && o.Width == 0 {
			t.Errorf("default width: got %d px, want %d", w, DefaultWidth)
		}
		return img.At(1, 1)
	}
	if r, _, _, _ := corner(Options{}).RGBA(); r>>8 != 0xff {
		t.Errorf("light theme: corner red %d, want white", r>>8)
	}
	if r, _, _, _ := corner(Options{Theme: Dark, Width: MinWidth}).RGBA(); r>>8 > 0x30 {
		t.Errorf("dark theme: corner red %d, want a dark background", r>>8)
	}
	for _, o := range []Options{{Slide: "3:2"}, {Theme: "blue"}, {Width: MinWidth - 1}, {Width: MaxWidth + 1}} {
		if _, err := Draw(f, PNG, o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
}

// TestMathText: the maths between \( and \) loses its markup and keeps its
// characters; what it cannot typeset is an error.
func TestMathText(t *testing.T) {
	for in, want := range map[string]string{
		`\(\|\partial L/\partial H_t\|\)`:                  "‖∂L/∂Ht‖",
		`attention weights \(\alpha_{t'j}\)`:               "attention weights αt′j",
		`\((\rho(W_{hh})\cdot\gamma)^{T-t}\)`:              "(ρ(Whh)·γ)T−t",
		`\(H_t^{(l)}\) per layer`:                          "Ht(l) per layer",
		`\(P(\hat{y}_{t'} \mid x)\)`:                       "P(ŷt′ | x)",
		`min_freq and W_hh outside maths stay as they are`: "min_freq and W_hh outside maths stay as they are",
	} {
		if got := PlainText(in); got != want {
			t.Errorf("PlainText(%q) = %q, want %q", in, got, want)
		}
		if err := CheckText(in); err != nil {
			t.Errorf("CheckText(%q): %v", in, err)
		}
	}
	for _, bad := range []string{`\(x`, `\(\nosuch\)`, `\(x_{t\)`, `\(x}\)`, `\(x_\)`} {
		if err := CheckText(bad); err == nil {
			t.Errorf("CheckText(%q): no error", bad)
		}
		if _, err := Draw(Figure{Title: bad}, SVG, Options{}); err == nil {
			t.Errorf("Draw with the title %q: no error", bad)
		}
	}
	spans, _ := layout(`\(R_t\)`)
	if len(spans) != 2 || !spans[0].italic || spans[1].size >= 1 || spans[1].rise >= 0 {
		t.Errorf(`\(R_t\): got spans %+v, want an oblique R and a smaller, lower t`, spans)
	}
}

// TestCanvasBytes: a PNG's canvas holds its RGBA pixels; vector drawings hold none.
func TestCanvasBytes(t *testing.T) {
	if got := CanvasBytes(PNG, Options{}); got != 4*1920*1080 {
		t.Errorf("default PNG: got %d bytes, want %d", got, 4*1920*1080)
	}
	if got := CanvasBytes(PNG, Options{Slide: Standard, Width: MaxWidth}); got != 4*3840*2880 {
		t.Errorf("4:3 at 3840 px: got %d bytes, want %d", got, 4*3840*2880)
	}
	if got := CanvasBytes(PDF, Options{Width: MaxWidth}); got != 0 {
		t.Errorf("PDF: got %d bytes, want 0", got)
	}
}

// TestCapitalMarksLifted: a combining mark over a capital letter (the C̃ of the LSTM's
// candidate cell) is drawn apart and raised, so that the export's C̃ does not read as
// Č or Ĉ; marks over small letters (x̂) and text without marks stay one run.
func TestCapitalMarksLifted(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []markPart
	}{
		{"written I⊙C\u0303ₜ", []markPart{{text: "written I⊙C"}, {text: "\u0303", capMark: true}, {text: "ₜ"}}},
		{"H\u0303", []markPart{{text: "H"}, {text: "\u0303", capMark: true}}},
		{"x\u0302 and Cₜ", []markPart{{text: "x\u0302 and Cₜ"}}},
		{"", nil},
	} {
		if got := markParts(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("markParts(%q) = %+v, want %+v", c.in, got, c.want)
		}
	}
}
