package web

import (
	"bytes"
	"encoding/json"
	"flag"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"unroll/data"
	"unroll/figures"
	"unroll/lessons"
	"unroll/sim"
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

// TestFigureOf: a lesson's plot becomes the figure drawn: its titles and flags, its
// series, or its grid with the lesson's space token as a dot.
func TestFigureOf(t *testing.T) {
	series := lessons.Plot{Title: "T", XLabel: "x", YLabel: "y", LogY: true, Points: true,
		Series: func(sim.Model) []lessons.Series {
			return []lessons.Series{{Label: "a", X: []float64{1}, Y: []float64{2}, Labels: []string{"w"}}}
		}}
	f := figureOf(series, nil)
	if f.Title != "T" || f.XLabel != "x" || f.YLabel != "y" || !f.LogY || !f.Points || f.Grid != nil ||
		len(f.Series) != 1 || f.Series[0].Label != "a" || f.Series[0].X[0] != 1 || f.Series[0].Y[0] != 2 || f.Series[0].Labels[0] != "w" {
		t.Errorf("series plot: got %+v", f)
	}
	cols := []string{"a", data.SpaceToken, "b"}
	grid := lessons.Plot{Title: "G", Grid: func(sim.Model) lessons.Grid {
		return lessons.Grid{Rows: []string{"r"}, Cols: cols, Values: [][]float64{{0, 0.5, 1}}, Lo: 0, Hi: 1}
	}}
	f = figureOf(grid, nil)
	want := figures.Grid{Rows: []string{"r"}, Cols: []string{"a", "·", "b"}, Values: [][]float64{{0, 0.5, 1}}, Lo: 0, Hi: 1}
	if f.Grid == nil || !slices.Equal(f.Grid.Rows, want.Rows) || !slices.Equal(f.Grid.Cols, want.Cols) ||
		!slices.Equal(f.Grid.Values[0], want.Values[0]) || f.Grid.Lo != 0 || f.Grid.Hi != 1 || f.Series != nil {
		t.Errorf("grid plot: got %+v, want grid %+v", f, want)
	}
	if cols[1] != data.SpaceToken {
		t.Errorf("figureOf changed the lesson's column labels")
	}
}
