package figures

import (
	"bytes"
	"image/color"
	"image/png"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// TestDrawDeterministic: the same series give the same image, and a log axis
// survives curves that are zero everywhere.
func TestDrawDeterministic(t *testing.T) {
	f := Figure{Title: "‖∂L/∂H_t‖", XLabel: "t", YLabel: "norm", LogY: true,
		Series: []Series{{Label: "a", X: []float64{1, 2, 3}, Y: []float64{1, 1e-3, 1e-6}}}}
	a, err := Draw(f, PNG, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Draw(f, PNG, Options{})
	if !bytes.Equal(a, b) {
		t.Errorf("two drawings of the same figure differ")
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
	f := Figure{Title: "attention weights α_t'j", XLabel: "source", YLabel: "output",
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
