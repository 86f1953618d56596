package web

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"unroll/data"
	"unroll/exports"
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
			if !strings.Contains(body, "Verdana") || strings.Contains(body, "font-family:DejaVu Sans;") {
				t.Errorf("the SVG's text has no fallback font after DejaVu Sans")
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

// TestPlotExportOptions: slide, theme and width reach the drawing: a 4:3 dark PNG
// 1000 px wide, and an SVG of the 4:3 shape.
func TestPlotExportOptions(t *testing.T) {
	_, ts := newLessonServer(t)
	status, _, body := fetch(t, "GET", ts.URL+"/lessons/tiny/plots/state.png?slide=4:3&theme=dark&width=1000", nil)
	if status != 200 {
		t.Fatalf("got %d %.200s", status, body)
	}
	img, err := png.Decode(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 1000 || b.Dy() != 750 {
		t.Errorf("got a %d×%d PNG, want 1000×750", b.Dx(), b.Dy())
	}
	if r, g, b, _ := img.At(2, 2).RGBA(); r>>8 > 0x30 || g>>8 > 0x30 || b>>8 > 0x30 {
		t.Errorf("dark theme: the corner is #%02x%02x%02x, want a dark background", r>>8, g>>8, b>>8)
	}
	_, _, svg := fetch(t, "GET", ts.URL+"/lessons/tiny/plots/state.svg?slide=4:3", nil)
	if !strings.Contains(svg, `width="576pt" height="432pt"`) {
		t.Errorf("4:3 SVG: got %.300s, want an 8 × 6 in drawing", svg)
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
		{"/lessons/tiny/plots/state.png?slide=3:2", 400, "slide must be 16:9 or 4:3"},
		{"/lessons/tiny/plots/state.svg?theme=blue", 400, "theme must be light or dark"},
		{"/lessons/tiny/plots/state.png?width=639", 400, "width must be a whole number of pixels from 640 to 3840"},
		{"/lessons/tiny/plots/state.png?width=3841", 400, "from 640 to 3840"},
		{"/lessons/tiny/plots/state.png?width=1e3", 400, "from 640 to 3840"},
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
	series := lessons.Plot{Title: "T", XLabel: "x", YLabel: "y", LogY: true, Points: true, Scale: []float64{0, 2},
		Series: func(sim.Model) []lessons.Series {
			return []lessons.Series{{Label: "a", X: []float64{1}, Y: []float64{2}, Labels: []string{"w"}}}
		}}
	f := figureOf(series, nil)
	if f.Title != "T" || f.XLabel != "x" || f.YLabel != "y" || !f.LogY || !f.Points || f.Grid != nil || !slices.Equal(f.YScale, []float64{0, 2}) ||
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

// needPoppler returns the path of a poppler-utils tool, or skips the test with the
// reason printed (fails instead when UNROLL_REQUIRE_BROWSER=1, as in CI, which
// installs poppler-utils with chromium).
func needPoppler(t *testing.T, tool string) string {
	t.Helper()
	path, err := exec.LookPath(tool)
	if err != nil {
		reason := tool + " not found on PATH (Debian: apt-get install poppler-utils)"
		if os.Getenv("UNROLL_REQUIRE_BROWSER") == "1" {
			t.Fatal("UNROLL_REQUIRE_BROWSER=1 and " + reason)
		}
		fmt.Println("skipping:", reason)
		t.Skip(reason)
	}
	return path
}

// exportedFigure is lesson l's plot p as the export draws it for the lesson's
// default page: built from the defaults, untrained.
func exportedFigure(t *testing.T, l *lessons.Lesson, p lessons.Plot) figures.Figure {
	t.Helper()
	m, err := l.Build(l.Params.Defaults())
	if err != nil {
		t.Fatalf("%s: %v", l.Slug, err)
	}
	return figureOf(p, m)
}

// squeeze is s without white space: pdftotext breaks lines around scripts and
// between the words of a rotated label.
func squeeze(s string) string {
	return strings.Join(strings.Fields(s), "")
}

// codeSpelling is a letter, an underscore and a letter, digit or bracket: W_hh, R_t,
// H_(t−1), the spelling of code, never the lecture's. min_freq is the name of a page
// parameter, written as the page writes it.
var codeSpelling = regexp.MustCompile(`[\p{L}]_[\p{L}\p{N}(<{]`)

// TestPlotPDFText extracts the text of every PDF export of every lesson with
// pdftotext and finds in it, character for character, the title, the axis labels and
// the legend's labels the figure was drawn with, with no mojibake (vgpdf's cp1252
// made ‖ into â€–), no markup and no code spelling left.
func TestPlotPDFText(t *testing.T) {
	pdftotext := needPoppler(t, "pdftotext")
	s, err := New(testLogger(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	ts := newHTTPTestServer(t, s)
	dir := t.TempDir()
	n := 0
	for _, l := range lessons.Catalog() {
		for _, p := range l.Plots {
			name := l.Slug + "/" + p.Name
			status, _, body := fetch(t, "GET", ts.URL+"/lessons/"+l.Slug+"/plots/"+p.Name+".pdf", nil)
			if status != 200 {
				t.Errorf("%s: got %d %.200s", name, status, body)
				continue
			}
			file := filepath.Join(dir, l.Slug+"-"+p.Name+".pdf")
			if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(pdftotext, "-raw", "-enc", "UTF-8", file, "-").Output()
			if err != nil {
				t.Fatalf("%s: pdftotext: %v", name, err)
			}
			text := string(out)
			got := squeeze(text)
			f := exportedFigure(t, l, p)
			want := []string{f.Title, f.XLabel, f.YLabel}
			for _, s := range f.Series {
				if len(s.X) > 0 && s.Label != "" { // a series with no points has no legend entry
					want = append(want, s.Label)
				}
			}
			for _, w := range want {
				if w == "" {
					continue
				}
				if !strings.Contains(got, squeeze(figures.PlainText(w))) {
					t.Errorf("%s: the PDF's text has no %q (drawn from %q); pdftotext gave:\n%s", name, figures.PlainText(w), w, text)
				}
			}
			for _, bad := range []string{"â€", "Ã", "Î", `\(`, `\)`, "\ufffd"} {
				if strings.Contains(text, bad) {
					t.Errorf("%s: the PDF's text has %q: %s", name, bad, text)
				}
			}
			if m := codeSpelling.FindString(strings.ReplaceAll(text, "min_freq", "")); m != "" {
				t.Errorf("%s: the PDF's text has the code spelling %q: %s", name, m, text)
			}
			n++
		}
	}
	if n < 20 {
		t.Errorf("checked %d PDF exports, want every lesson's (at least 20)", n)
	}
}

// chroma is how far a pixel is from grey: viridis' colours are at least 60 from it,
// text, axes and both themes' backgrounds under 16.
func chroma(c color.Color) int {
	r, g, b, _ := c.RGBA()
	r, g, b = r>>8, g>>8, b>>8
	return int(max(r, g, b) - min(r, g, b))
}

// colourDistance is the squared RGB distance of two pixels.
func colourDistance(a, b color.Color) int {
	r1, g1, b1, _ := a.RGBA()
	r2, g2, b2, _ := b.RGBA()
	d := func(x, y uint32) int { return (int(x>>8) - int(y>>8)) * (int(x>>8) - int(y>>8)) }
	return d(r1, r2) + d(g1, g2) + d(b1, b2)
}

// spans are the runs of true in a mask, as [start, end) pairs.
func spans(mask []bool) [][2]int {
	var out [][2]int
	for i := 0; i < len(mask); i++ {
		if !mask[i] {
			continue
		}
		j := i
		for j < len(mask) && mask[j] {
			j++
		}
		out = append(out, [2]int{i, j})
		i = j
	}
	return out
}

// checkColourBar finds, in a heatmap figure's pixels, the cells (the left block of
// colour) and the colour bar (the right one), samples the cells with the grid's
// largest and smallest values, and checks that the bar shows each colour at that
// value's height: Hi at the top, Lo at the bottom, as its tick labels say.
func checkColourBar(t *testing.T, name string, img image.Image, g figures.Grid) {
	t.Helper()
	b := img.Bounds()
	cols := make([]bool, b.Dx())
	for x := range b.Dx() {
		for y := b.Min.Y; y < b.Max.Y; y += 2 {
			if chroma(img.At(b.Min.X+x, y)) > 40 {
				cols[x] = true
				break
			}
		}
	}
	blocks := spans(cols)
	// a panel's current-step frame is a black line across every row: the gap it leaves
	// in the cells is a few pixels, the gap before the colour bar far more
	for i := 1; i < len(blocks); {
		if blocks[i][0]-blocks[i-1][1] <= b.Dx()/150 {
			blocks[i-1][1] = blocks[i][1]
			blocks = append(blocks[:i], blocks[i+1:]...)
			continue
		}
		i++
	}
	if len(blocks) < 2 {
		t.Errorf("%s: found %d blocks of colour across the figure, want the cells and the bar", name, len(blocks))
		return
	}
	// the bar is the last block; cells near 0 on a diverging scale are white, so the
	// cells may be several blocks (the positional encoding's columns): one span
	blocks = [][2]int{{blocks[0][0], blocks[len(blocks)-2][1]}, blocks[len(blocks)-1]}
	rowsOf := func(x0, x1 int) (int, int) { // the coloured rows of the block, over 9 columns of it (one may be white)
		mask := make([]bool, b.Dy())
		for y := range b.Dy() {
			for k := 1; k <= 9 && !mask[y]; k++ {
				mask[y] = chroma(img.At(b.Min.X+x0+k*(x1-x0)/10, b.Min.Y+y)) > 40
			}
		}
		s := spans(mask)
		if len(s) == 0 {
			return 0, 0
		}
		return s[0][0], s[len(s)-1][1]
	}
	cx0, cx1 := blocks[0][0], blocks[0][1]
	cy0, cy1 := rowsOf(cx0, cx1)
	bx := (blocks[1][0] + blocks[1][1]) / 2
	by0, by1 := rowsOf(blocks[1][0], blocks[1][1])
	if cy1-cy0 < 50 || by1-by0 < 50 {
		t.Errorf("%s: cells %d px and bar %d px high, want both over 50", name, cy1-cy0, by1-by0)
		return
	}
	// The cells with the largest and the smallest value.
	var hi, lo [2]int
	for r, row := range g.Values {
		for c, v := range row {
			if v > g.Values[hi[0]][hi[1]] {
				hi = [2]int{r, c}
			}
			if v < g.Values[lo[0]][lo[1]] {
				lo = [2]int{r, c}
			}
		}
	}
	vhi, vlo := g.Values[hi[0]][hi[1]], g.Values[lo[0]][lo[1]]
	if vhi-vlo < 0.4*(g.Hi-g.Lo) {
		t.Fatalf("%s: the values span only %v to %v: too little to tell the bar's direction", name, vlo, vhi)
	}
	centre := func(rc [2]int) color.Color {
		x := cx0 + (2*rc[1]+1)*(cx1-cx0)/(2*len(g.Cols))
		y := cy0 + (2*rc[0]+1)*(cy1-cy0)/(2*len(g.Rows))
		return img.At(b.Min.X+x, b.Min.Y+y)
	}
	for _, c := range []struct {
		what string
		v    float64
		col  color.Color
	}{{"largest", vhi, centre(hi)}, {"smallest", vlo, centre(lo)}} {
		best, at := -1, 0
		for y := by0; y < by1; y++ {
			if d := colourDistance(img.At(b.Min.X+bx, b.Min.Y+y), c.col); best < 0 || d < best {
				best, at = d, y
			}
		}
		got := float64(by1-at) / float64(by1-by0) // height on the bar, 0 at its foot
		want := (c.v - g.Lo) / (g.Hi - g.Lo)
		if math.Abs(got-want) > 0.1 {
			t.Errorf("%s: the %s cell (%.3f) has the colour the bar shows at %.2f of its height, want %.2f", name, c.what, c.v, got, want)
		}
	}
}

// TestHeatmapColourBar renders every heatmap export of every lesson, PNG (both
// themes) and PDF (through pdftoppm), and checks that its colour bar runs the way
// the cells are coloured.
func TestHeatmapColourBar(t *testing.T) {
	pdftoppm := needPoppler(t, "pdftoppm")
	s, err := New(testLogger(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	ts := newHTTPTestServer(t, s)
	dir := t.TempDir()
	n := 0
	for _, l := range lessons.Catalog() {
		for _, p := range l.Plots {
			if p.Grid == nil {
				continue
			}
			g := *exportedFigure(t, l, p).Grid
			for _, file := range []string{p.Name + ".png", p.Name + ".png?theme=dark", p.Name + ".pdf"} {
				name := l.Slug + "/" + file
				status, _, body := fetch(t, "GET", ts.URL+"/lessons/"+l.Slug+"/plots/"+file, nil)
				if status != 200 {
					t.Errorf("%s: got %d %.200s", name, status, body)
					continue
				}
				pngBytes := []byte(body)
				if strings.HasSuffix(file, ".pdf") {
					in := filepath.Join(dir, "in.pdf")
					if err := os.WriteFile(in, pngBytes, 0o644); err != nil {
						t.Fatal(err)
					}
					out := filepath.Join(dir, "out")
					if msg, err := exec.Command(pdftoppm, "-png", "-r", "150", "-singlefile", in, out).CombinedOutput(); err != nil {
						t.Fatalf("%s: pdftoppm: %v %s", name, err, msg)
					}
					if pngBytes, err = os.ReadFile(out + ".png"); err != nil {
						t.Fatal(err)
					}
				}
				img, err := png.Decode(bytes.NewReader(pngBytes))
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				checkColourBar(t, name, img, g)
				n++
			}
		}
	}
	// The page's panels exported as heatmaps, at their last step, run their bar the same way.
	for _, lp := range [][2]string{{"gru", "Z"}, {"lstm", "F"}, {"attention", "alignment"}} {
		l, p := lessonOf(t, lp[0]), lp[1]
		panel, ok := exports.Find(l, p)
		if !ok {
			t.Fatalf("%s has no panel %s", lp[0], p)
		}
		m, err := l.Build(l.Params.Defaults())
		if err != nil {
			t.Fatal(err)
		}
		v, err := exports.NewView(context.Background(), l, m, m.Steps())
		if err != nil {
			t.Fatal(err)
		}
		f, err := exports.Panel(v, panel)
		if err != nil || f.Grid == nil {
			t.Fatalf("%s/%s: %v, a grid: %v", lp[0], p, err, f.Grid != nil)
		}
		file := fmt.Sprintf("%s.png?step=%d", p, m.Steps())
		status, _, body := fetch(t, "GET", ts.URL+"/lessons/"+l.Slug+"/panels/"+file, nil)
		if status != 200 {
			t.Fatalf("%s/%s: got %d %.200s", l.Slug, file, status, body)
		}
		img, err := png.Decode(strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		checkColourBar(t, l.Slug+"/panels/"+file, img, *f.Grid)
		n++
	}
	if n < 12 {
		t.Errorf("checked %d heatmap renderings, want 3 for each of at least 3 plots and 3 panels", n)
	}
}

// lessonOf is the catalog's lesson slug.
func lessonOf(t *testing.T, slug string) *lessons.Lesson {
	t.Helper()
	for _, l := range lessons.Catalog() {
		if l.Slug == slug {
			return l
		}
	}
	t.Fatalf("no lesson %q", slug)
	return nil
}
