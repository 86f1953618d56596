package web

import (
	"bytes"
	"encoding/json"
	"flag"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"unroll/lessons"
)

func TestPlotExport(t *testing.T) {
	_, ts := newLessonServer(t)
	tests := []struct {
		path, contentType string
		check             func(t *testing.T, body string)
	}{
		{"/lessons/tiny/plots/state.png?hidden=6", "image/png", func(t *testing.T, body string) {
			img, err := png.Decode(strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			if w := img.Bounds().Dx(); w < 1600 {
				t.Errorf("got a PNG %d px wide, want ≥ 1600", w)
			}
		}},
		{"/lessons/tiny/plots/state.svg", "image/svg+xml", func(t *testing.T, body string) {
			if !strings.Contains(body, "<svg") || !strings.Contains(body, "per step") {
				t.Errorf("got %.200s, want an SVG with the title", body)
			}
			if !strings.Contains(body, "'Times New Roman'") || strings.Contains(body, "font-family:Liberation Serif;") {
				t.Errorf("the SVG's text has no metric-compatible fallback font")
			}
		}},
		{"/lessons/tiny/plots/state.pdf", "application/pdf", func(t *testing.T, body string) {
			if !strings.HasPrefix(body, "%PDF") {
				t.Errorf("got %.20q, want a PDF", body)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			status, h, body := fetch(t, "GET", ts.URL+tt.path, nil)
			if status != 200 || h.Get("Content-Type") != tt.contentType {
				t.Fatalf("got %d %s %.200s, want 200 %s", status, h.Get("Content-Type"), body, tt.contentType)
			}
			tt.check(t, body)
		})
	}
}

// TestPlotExportTrained: an export of a URL with trained=N draws the model trained N
// steps from the seed, as the page showed it.
func TestPlotExportTrained(t *testing.T) {
	_, ts := newLessonServer(t)
	get := func(q string) string {
		status, _, body := fetch(t, "GET", ts.URL+"/lessons/tiny/plots/state.svg?"+q, nil)
		if status != 200 {
			t.Fatalf("%s: got %d %.200s", q, status, body)
		}
		return body
	}
	untrained, trained := get("seed=2"), get("seed=2&trained=5")
	if untrained == trained {
		t.Errorf("the export with trained=5 is the untrained model's")
	}
	if again := get("seed=2&trained=5"); again != trained {
		t.Errorf("two exports of the same trained URL differ")
	}
	if status, _, body := fetch(t, "GET", ts.URL+"/lessons/tiny/plots/state.svg?trained=-1", nil); status != 400 || !strings.Contains(body, "trained must be") {
		t.Errorf("trained=-1: got %d %.200s, want 400 naming trained", status, body)
	}
}

func TestPlotExportErrors(t *testing.T) {
	_, ts := newLessonServer(t)
	tests := []struct {
		path   string
		status int
		want   string
	}{
		{"/lessons/nope/plots/state.png", 404, `no lesson "nope"`},
		{"/lessons/tiny/plots/other.png", 404, `no plot "other"; its plots are state`},
		{"/lessons/tiny/plots/state.gif", 404, ".png, .svg or .pdf"},
		{"/lessons/tiny/plots/state", 404, ".png, .svg or .pdf"},
		{"/lessons/tiny/plots/state.png?hidden=0", 400, "between 1 and 64"},
		{"/lessons/tiny/plots/state.png?input=xyz", 400, "only use the letters"},
	}
	for _, tt := range tests {
		status, h, body := fetch(t, "GET", ts.URL+tt.path, nil)
		var e struct{ Error string }
		if status != tt.status || h.Get("Content-Type") != "application/json" || json.Unmarshal([]byte(body), &e) != nil || !strings.Contains(e.Error, tt.want) {
			t.Errorf("%s: got %d %s, want %d with a JSON error containing %q", tt.path, status, body, tt.status, tt.want)
		}
	}
}

// TestRenderPlotDeterministic: the same series give the same image, and a log axis
// survives curves that are zero everywhere.
func TestRenderPlotDeterministic(t *testing.T) {
	p := lessons.Plot{Name: "n", Title: "‖∂L/∂H_t‖", XLabel: "t", YLabel: "norm", LogY: true}
	series := []lessons.Series{{Label: "a", X: []float64{1, 2, 3}, Y: []float64{1, 1e-3, 1e-6}}}
	a, err := renderPlot(p, series, "png")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := renderPlot(p, series, "png")
	if !bytes.Equal(a, b) {
		t.Errorf("two renders of the same plot differ")
	}
	if _, err := renderPlot(p, []lessons.Series{{Label: "zero", X: []float64{1}, Y: []float64{0}}}, "svg"); err != nil {
		t.Errorf("all-zero log plot: %v", err)
	}
}

var updatePlots = flag.Bool("update", false, "rewrite the golden plots in testdata/")

// TestPlotGolden compares the tiny lesson's exported PNG with testdata/tiny-state.png
// pixel by pixel (a channel may differ by plotPixelTolerance: font rasterisers round
// differently). Refresh with: go test ./web -run TestPlotGolden -update
func TestPlotGolden(t *testing.T) {
	const plotPixelTolerance = 8
	_, ts := newLessonServer(t)
	_, _, body := fetch(t, "GET", ts.URL+"/lessons/tiny/plots/state.png?hidden=6&seed=2", nil)
	path := filepath.Join("testdata", "tiny-state.png")
	if *updatePlots {
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	wantFile, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	got, err := png.Decode(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	want, err := png.Decode(bytes.NewReader(wantFile))
	if err != nil {
		t.Fatal(err)
	}
	if got.Bounds() != want.Bounds() {
		t.Fatalf("got size %v, want %v", got.Bounds(), want.Bounds())
	}
	differ := 0
	b := got.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r1, g1, b1, _ := got.At(x, y).RGBA()
			r2, g2, b2, _ := want.At(x, y).RGBA()
			for _, d := range []int{int(r1>>8) - int(r2>>8), int(g1>>8) - int(g2>>8), int(b1>>8) - int(b2>>8)} {
				if d > plotPixelTolerance || d < -plotPixelTolerance {
					differ++
				}
			}
		}
	}
	if differ > 0 {
		t.Errorf("got %d pixel channels differing by more than %d from %s", differ, plotPixelTolerance, path)
	}
}

func TestLinearTicksAreDistinct(t *testing.T) {
	for _, r := range [][2]float64{{-3.04, -2.88}, {-3.037, -2.919}, {0, 1}, {1, 17.5}, {-0.5, 1e-3}, {1000, 1000.001}} {
		seen := map[string]bool{}
		labelled := 0
		for _, tk := range (linearTicks{}).Ticks(r[0], r[1]) {
			if tk.Label == "" {
				continue
			}
			labelled++
			if seen[tk.Label] {
				t.Errorf("range %v: two ticks labelled %q", r, tk.Label)
			}
			seen[tk.Label] = true
		}
		if labelled < 2 {
			t.Errorf("range %v: %d labelled ticks, want at least 2", r, labelled)
		}
	}
}

// TestRenderGrid: a heatmap export is a 1600 px PNG whose cells take the ends of the
// fixed scale (viridis #440154 at Lo, #fde725 at Hi), the same every time; an empty
// grid still draws.
func TestRenderGrid(t *testing.T) {
	p := lessons.Plot{Name: "w", Title: "attention weights α_t'j", XLabel: "source", YLabel: "output"}
	g := lessons.Grid{Rows: []string{"ils", "<eos>"}, Cols: []string{"they", "␣", "."}, Values: [][]float64{{0, 1, 0}, {0, 0, 0}}, Lo: 0, Hi: 1}
	a, err := renderGrid(p, g, "png")
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := renderGrid(p, g, "png"); !bytes.Equal(a, b) {
		t.Errorf("two renders of the same grid differ")
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
	for _, format := range []string{"svg", "pdf"} {
		if _, err := renderGrid(p, lessons.Grid{Lo: 0, Hi: 1}, format); err != nil {
			t.Errorf("empty grid as %s: %v", format, err)
		}
	}
}

// TestWholeTicks: an axis of whole numbers gets whole ticks only, every one labelled
// when there are few (min_freq 1…5), every 2nd, 5th … when there are more, never
// "17.50".
func TestWholeTicks(t *testing.T) {
	cases := []struct {
		lo, hi float64
		want   string // the labels
	}{
		{1, 5, "1 2 3 4 5"},
		{1, 7, "1 2 3 4 5 6 7"},
		{1, 8, "2 4 6 8"},
		{1, 11, "2 4 6 8 10"},
		{1.9, 18.5, "5 10 15"},
		{50, 4000, "1000 2000 3000 4000"},
	}
	for _, c := range cases {
		var labels []string
		for _, tk := range (wholeTicks{}).Ticks(c.lo, c.hi) {
			if tk.Value != math.Trunc(tk.Value) {
				t.Errorf("[%v, %v]: a tick at %v", c.lo, c.hi, tk.Value)
			}
			if tk.Label != "" {
				labels = append(labels, tk.Label)
			}
		}
		if got := strings.Join(labels, " "); got != c.want {
			t.Errorf("[%v, %v]: labels %q, want %q", c.lo, c.hi, got, c.want)
		}
	}
	if !wholeAxis([][]float64{{1, 2, 3}}, 1, 3) || wholeAxis([][]float64{{0, 1}}, 0, 1.18) || wholeAxis([][]float64{{0.5, 2.5}}, 0, 3) {
		t.Errorf("wholeAxis: steps 1…3 are whole, precisions 0 and 1 and halves are not")
	}
	if !wholeAxis([][]float64{{16, 16, 3, 2}, {15.2, 14.8, 3.1, 2.4}}, 2, 18) {
		t.Errorf("wholeAxis: positions with their expected value between them are whole")
	}
}

// TestLegendClearsTitle: a legend wide enough to reach under the title is lowered,
// and the headroom grows with its rows; a short legend stays where it was.
func TestLegendClearsTitle(t *testing.T) {
	c := draw.New(vgsvg.New(plotWidth, plotHeight))
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

// TestExportsFollowTheView: exports are drawn from the page's state: min_freq moves
// the unk-rate marker, the word picks the embedding map's labelled points, the seed
// draws the untrained encoder-decoder.
func TestExportsFollowTheView(t *testing.T) {
	s, err := New(testLogger(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	ts := newHTTPTestServer(t, s)
	pairs := [][2]string{
		{"/lessons/mt-data/plots/unk-rate.svg?min_freq=2", "/lessons/mt-data/plots/unk-rate.svg?min_freq=4"},
		{"/lessons/embeddings/plots/space.svg?word=girl", "/lessons/embeddings/plots/space.svg?word=paris"},
		{"/lessons/encoder-decoder/plots/state-norms.svg?weights=untrained&seed=1", "/lessons/encoder-decoder/plots/state-norms.svg?weights=untrained&seed=2"},
	}
	for _, p := range pairs {
		_, _, a := fetch(t, "GET", ts.URL+p[0], nil)
		_, _, b := fetch(t, "GET", ts.URL+p[1], nil)
		if a == b || !strings.Contains(a, "<svg") {
			t.Errorf("%s and %s: got the same figure", p[0], p[1])
		}
	}
	if _, _, body := fetch(t, "GET", ts.URL+pairs[0][1], nil); !strings.Contains(body, "min_freq = 4") {
		t.Errorf("unk-rate at min_freq 4: no marker named in the legend")
	}
}
