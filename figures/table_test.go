package figures

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
)

// room is the canvas a figure's body has: the figure inside its margins, below a title.
var room = struct{ w, h vg.Length }{figureWidth - 2*figureMargin, slideHeights[Wide] - 2*figureMargin - vg.Points(titleSize+8)}

// countNear counts the pixels within 40 (per channel, of 255) of colour c.
func countNear(img image.Image, c color.RGBA) int {
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			d := func(v uint32, w uint8) bool { return max(v>>8, uint32(w))-min(v>>8, uint32(w)) <= 40 }
			if d(r, c.R) && d(g, c.G) && d(bl, c.B) {
				n++
			}
		}
	}
	return n
}

// drawPNG draws f as a PNG and decodes it.
func drawPNG(t *testing.T, f Figure) image.Image {
	t.Helper()
	b, err := Draw(f, PNG, Options{})
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// TestTableMarks: a cell's marks are drawn as shapes and outlines, not as a colour
// alone: the current cell's thick dark outline, a match's check and a wrong cell's
// cross each add pixels of their line colour that a plain cell of the same fill
// does not have; the same table gives the same PNG.
func TestTableMarks(t *testing.T) {
	table := func(m Mark) Figure {
		return Figure{Title: "marks", Tables: []Table{{Rows: []Row{{Label: "row", Cells: []Cell{{Text: "a"}, {Text: "b", Mark: m}}}}}}}
	}
	plainImg := drawPNG(t, table(0))
	for _, c := range []struct {
		mark Mark
		line color.RGBA
	}{{Current, nowStroke}, {Match, goodLine}, {Wrong, badLine}, {Clipped, clipLine}, {Unknown, unkLine}} {
		img := drawPNG(t, table(c.mark))
		if got, base := countNear(img, c.line), countNear(plainImg, c.line); got < base+400 {
			t.Errorf("mark %b: %d pixels of its line colour, a plain cell has %d: want at least 400 more", c.mark, got, base)
		}
	}
	a, _ := Draw(table(Match), PNG, Options{})
	b, _ := Draw(table(Match), PNG, Options{})
	if !bytes.Equal(a, b) {
		t.Errorf("two drawings of the same table differ")
	}
}

// TestTablesFit: a small table grows to maxScale; a long stack of tables keeps its
// type at least minSmall points (20 px on a 1920 px slide) and leaves out the earliest
// tables, saying how many; a table too wide for the figure wraps its columns into
// blocks rather than shrinking below minScale.
func TestTablesFit(t *testing.T) {
	small := []Table{{Rows: []Row{{Label: "a", Cells: []Cell{{Text: "1"}}}}}}
	if _, s, _ := fitTables(small, room.w, room.h); s != maxScale {
		t.Errorf("a one-cell table drawn at scale %v, want %v", s, maxScale)
	}
	var many []Table
	for i := range 12 {
		tab := Table{Title: fmt.Sprintf("table %d", i+1)}
		for r := range 6 {
			tab.Rows = append(tab.Rows, Row{Label: fmt.Sprint(r), Cells: []Cell{{Text: "cell", Sub: "sub"}}})
		}
		many = append(many, tab)
	}
	items, s, dropped := fitTables(many, room.w, room.h)
	if s*smallSize < minSmall-1e-9 {
		t.Errorf("12 tables drawn at scale %v: small type of %.2f pt, want ≥ %v", s, s*smallSize, minSmall)
	}
	if dropped == 0 || dropped >= len(many) {
		t.Errorf("12 tables: %d left out, want some but not all", dropped)
	}
	note := fmt.Sprintf("(%d earlier tables above these are not shown)", dropped)
	found := false
	for _, it := range items {
		found = found || it.kind == itemNote && it.text == note
	}
	if !found {
		t.Errorf("12 tables: no note %q", note)
	}
	var wide Table
	var row Row
	for i := range 60 {
		wide.Head = append(wide.Head, fmt.Sprint(i+1))
		row.Cells = append(row.Cells, Cell{Text: "word"})
	}
	wide.Rows = []Row{row}
	items, s, _ = fitTables([]Table{wide}, room.w, room.h)
	heads, tops := 0, map[float64]bool{}
	for _, it := range items {
		if it.kind == itemHead {
			heads++
			tops[it.r.y] = true
		}
		if it.kind == itemCell && (it.r.x+it.r.w)*s > float64(room.w)+1 {
			t.Errorf("a cell of the wide table ends at %.0f pt, beyond the figure's %.0f", (it.r.x+it.r.w)*s, float64(room.w))
			break
		}
	}
	if s < minScale || heads != 60 || len(tops) < 2 {
		t.Errorf("the wide table: scale %v, %d column heads on %d lines, want ≥ %v, 60 on several lines", s, heads, len(tops), minScale)
	}
}

// TestPlain: a title whose TeX the typesetter cannot set reads as plain text, and
// a title in the figures' markup is set as it is.
func TestPlain(t *testing.T) {
	for in, want := range map[string]string{
		`\(P(y_{t'} \mid \dots)\): top 5`: "P(y_t' | …): top 5",
		`encoder \(\to\) \(\mathbf{c}\)`:  "encoder → c",
		`costs $5`:                        "costs $5",
	} {
		if got := Plain(in); got != want {
			t.Errorf("Plain(%q) = %q, want %q", in, got, want)
		}
		if strings.Contains(Plain(in), `\(`) {
			t.Errorf("Plain left a delimiter")
		}
	}
}

// TestPlainTop: \top is a transpose, not \to followed by p.
func TestPlainTop(t *testing.T) {
	if got := Plain(`\(QK^\top\)`); got != "QK^ᵀ" {
		t.Errorf(`Plain(\(QK^\top\)) = %q, want "QK^ᵀ"`, got)
	}
}
