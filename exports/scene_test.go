package exports

import (
	"bytes"
	"encoding/csv"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"unroll/figures"
	"unroll/lessons"
	"unroll/palette"
	"unroll/sim"
)

// sceneView is the captioning lesson's view at step 1 with the image drawn from text
// (the page's image field).
func sceneView(t *testing.T, image string) (View, lessons.Panel) {
	t.Helper()
	l := lessonNamed(t, "captioning")
	v := sim.Values{}
	for k, x := range l.Params.Defaults() {
		v[k] = x
	}
	v["image"] = image
	m, err := l.Build(v)
	if err != nil {
		t.Fatalf("captioning with image %q: %v", image, err)
	}
	return viewAt(t, l, m, 1), panelNamed(t, l, "scene")
}

// TestScenePaintsAreThePages: every colour word the captioning lesson offers (its
// static "colours", seed 003's world) has a paint in the palette, which scene.js
// reads through palette.js (TestJSUpToDate holds the file to the palette), so the page
// and the export draw each colour alike.
func TestScenePaintsAreThePages(t *testing.T) {
	v, _ := sceneView(t, "red circle 1 1")
	var colours []string
	if !decodeOK(v.Static.Meta["colours"], &colours) || len(colours) == 0 {
		t.Fatal("captioning has no static colours")
	}
	for _, c := range colours {
		if _, ok := palette.ScenePaint[c]; !ok {
			t.Errorf("the colour %q has no paint in palette.ScenePaint", c)
		}
	}
}

// decodeOK decodes a static meta value into out.
func decodeOK(x any, out any) bool { return decodeMeta(x, out) == nil }

// near reports whether two colours differ by at most tol in each channel.
func near(a, b color.Color, tol int) bool {
	r1, g1, b1, _ := a.RGBA()
	r2, g2, b2, _ := b.RGBA()
	d := func(x, y uint32) bool { return abs(int(x>>8)-int(y>>8)) <= tol }
	return d(r1, r2) && d(g1, g2) && d(b1, b2)
}

// sceneRasters are the scene figure f drawn as pixels: PNGs decoded in Go (both
// themes, both slides) and the PDF rasterised by poppler's pdftoppm when installed,
// each with the options it was drawn with.
func sceneRasters(t *testing.T, f figures.Figure) map[string]struct {
	img image.Image
	o   figures.Options
} {
	t.Helper()
	out := map[string]struct {
		img image.Image
		o   figures.Options
	}{}
	for _, o := range []figures.Options{
		pngOptions(),
		{Theme: figures.Dark, Slide: figures.Standard, Width: pngOptions().Width},
	} {
		b, err := figures.Draw(f, figures.PNG, o)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("the scene's PNG does not decode: %v", err)
		}
		out["PNG "+string(o.Theme)+" "+string(o.Slide)] = struct {
			img image.Image
			o   figures.Options
		}{img, o}
	}
	pdftoppm, err := exec.LookPath("pdftoppm")
	if err != nil {
		t.Log("pdftoppm (poppler-utils) is not installed: the PDF's pixels are not checked")
		return out
	}
	o := figures.Options{Slide: figures.Standard}
	pdf, err := figures.Draw(f, figures.PDF, o)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "in.pdf")
	if err := os.WriteFile(in, pdf, 0o644); err != nil {
		t.Fatal(err)
	}
	if msg, err := exec.Command(pdftoppm, "-png", "-r", "150", "-singlefile", in, filepath.Join(dir, "out")).CombinedOutput(); err != nil {
		t.Fatalf("pdftoppm: %v %s", err, msg)
	}
	b, err := os.ReadFile(filepath.Join(dir, "out.png"))
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out["PDF"] = struct {
		img image.Image
		o   figures.Options
	}{img, o}
	return out
}

// TestSceneFigurePixels (seed 003's image v): the scene panel's export draws the
// picture the page draws, in every format: the red circle's cell is red at its
// centre, an empty cell is the grid's ground, and a square (its outline) is told from
// a triangle by its pixels: the square's top-left corner is painted and its middle
// is ground, the triangle's corner is ground and its middle painted (and its base,
// where a disc would not reach).
func TestSceneFigurePixels(t *testing.T) {
	for _, c := range []struct {
		image string
		empty [2]int // an empty cell
	}{
		{"red circle 1 1, blue triangle 3 1", [2]int{2, 2}},
		{"green square 2 2, yellow triangle 2 3", [2]int{1, 1}},
		{"yellow square 1 3", [2]int{3, 3}},
	} {
		v, p := sceneView(t, c.image)
		f, err := Panel(v, p)
		if err != nil {
			t.Fatalf("%s: %v", c.image, err)
		}
		if f.Scene == nil || len(f.Tables) > 0 {
			t.Fatalf("%s: the export is not a picture (scene %v, %d tables)", c.image, f.Scene != nil, len(f.Tables))
		}
		var shapes []sceneShape
		if !decodeOK(v.Static.Meta["scene"], &shapes) || len(shapes) == 0 {
			t.Fatalf("%s: no static scene", c.image)
		}
		ground := palette.SceneGround.RGBA()
		for name, r := range sceneRasters(t, f) {
			name = c.image + " " + name
			b := r.img.Bounds()
			// at is the pixel at fractions (fx, fy) of cell (row, col) (1-based).
			at := func(row, col int, fx, fy float64) color.Color {
				x0, y0, x1, y1, err := figures.SceneCell(f, r.o, row-1, col-1)
				if err != nil {
					t.Fatal(err)
				}
				x := x0 + (x1-x0)*fx
				y := y0 + (y1-y0)*fy
				return r.img.At(b.Min.X+int(x*float64(b.Dx())), b.Min.Y+int(y*float64(b.Dy())))
			}
			if got := at(c.empty[0], c.empty[1], 0.5, 0.5); !near(got, ground, 3) {
				t.Errorf("%s: the empty cell %v is %v at its centre, want the ground %v", name, c.empty, got, ground)
			}
			if got := at(c.empty[0], c.empty[1], 0.2, 0.2); !near(got, ground, 3) {
				t.Errorf("%s: the empty cell %v is %v near its corner, want the ground %v", name, c.empty, got, ground)
			}
			for _, s := range shapes {
				paint := palette.ScenePaint[s.Colour].RGBA()
				row, col := s.Row+1, s.Col+1
				// the shape's box runs from 0.14 to 0.86 of its cell; a square's outline is
				// 0.12 of the cell thick, so 0.2 is inside it, in its top-left corner
				centre, corner := at(row, col, 0.5, 0.5), at(row, col, 0.2, 0.2)
				onCentre, onCorner := s.Shape != "square", s.Shape == "square"
				for _, q := range []struct {
					where string
					got   color.Color
					paint bool
				}{{"centre", centre, onCentre}, {"top-left corner", corner, onCorner}} {
					want := ground
					if q.paint {
						want = paint
					}
					if !near(q.got, want, 3) {
						t.Errorf("%s: the %s %s in row %d, column %d is %v at its %s, want %v", name, s.Colour, s.Shape, row, col, q.got, q.where, want)
					}
				}
				if s.Shape == "triangle" {
					// standing on its base: painted near its bottom-left corner, where a disc is not
					if got := at(row, col, 0.25, 0.8); !near(got, paint, 3) {
						t.Errorf("%s: the triangle is %v near its base's left end, want %v", name, got, paint)
					}
				}
				if s.Shape == "circle" {
					// a disc: painted left of its centre, ground in its box's corner
					if got := at(row, col, 0.2, 0.5); !near(got, paint, 3) {
						t.Errorf("%s: the circle is %v left of its centre, want %v", name, got, paint)
					}
				}
			}
		}
	}
}

// TestSceneExportText: the picture's PDF carries the title and the position words of
// the captions' grammar as its rows' and columns' names, and no brush (the page's
// control under the grid).
func TestSceneExportText(t *testing.T) {
	v, p := sceneView(t, "red circle 1 1")
	f, err := Panel(v, p)
	if err != nil {
		t.Fatal(err)
	}
	pdf, err := figures.Draw(f, figures.PDF, figures.Options{})
	if err != nil {
		t.Fatal(err)
	}
	text, ok := pdfText(t, pdf)
	if !ok {
		t.Skip("pdftotext is not installed")
	}
	words := strings.Fields(text)
	for _, w := range slices.Concat([]string{"image"}, sceneRowWords, sceneColWords) {
		if !slices.Contains(words, w) {
			t.Errorf("the PDF has no %q in %q", w, text)
		}
	}
	for _, w := range []string{"brush", "circle", "square", "triangle"} {
		if slices.Contains(words, w) {
			t.Errorf("the PDF has %q, a word of the brush or of a table of names: %q", w, text)
		}
	}
}

// TestSceneCSV: the scene panel's CSV is the image, one row per cell in reading order
// with its row and column (from 1, as the image field writes them), their position
// words and the shape in it; it reads back as the image drawn.
func TestSceneCSV(t *testing.T) {
	image := "green triangle 3 2, yellow circle 1 2"
	v, p := sceneView(t, image)
	recs, err := csv.NewReader(bytes.NewReader(CSV(v, p))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1+9 {
		t.Fatalf("%d records, want a header and 9 cells: %v", len(recs), recs)
	}
	if want := []string{"row", "column", "row word", "column word", "colour", "shape"}; !slices.Equal(recs[0], want) {
		t.Errorf("header %v, want %v", recs[0], want)
	}
	var parts []string
	for i, r := range recs[1:] {
		if want := []string{string(rune('1' + i/3)), string(rune('1' + i%3)), sceneRowWords[i/3], sceneColWords[i%3]}; !slices.Equal(r[:4], want) {
			t.Errorf("record %d: %v, want the cell %v", i+1, r, want)
		}
		if r[4] != "" {
			parts = append(parts, r[4]+" "+r[5]+" "+r[0]+" "+r[1])
		}
	}
	// reading order: row by row
	if got, want := strings.Join(parts, ", "), "yellow circle 1 2, green triangle 3 2"; got != want {
		t.Errorf("the CSV's image is %q, want %q", got, want)
	}
}
