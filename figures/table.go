package figures

import (
	"fmt"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Table is one table of a figure of tables: a title, column headers, and rows of
// cells, each of which may stand out by its Mark or carry a bar (a probability).
type Table struct {
	Title string
	Mark  Mark // Current: the table of the step now (its title gets the ► pointer)
	Head  []string
	Rows  []Row
	// BoldLabels draws the rows' labels in the cells' type rather than the small grey
	// type of a caption (a top-k list's tokens are its content).
	BoldLabels bool
	Notes      []string   // lines under the table
	Key        []KeyEntry // what its marks mean: a figure draws the tables' keys once, below them
}

// Row is one row of a table. An Inline row is text: its cells are characters drawn
// side by side, wrapping at the figure's width; other rows are boxes in columns.
type Row struct {
	Label  string
	Cells  []Cell
	Inline bool
	Mark   Mark // Current: the row of the step now, on a tinted band
}

// Cell is one cell: its text, an optional second line Sub, its marks, and when HasBar
// a bar filled to Bar (0..1) left of the text.
type Cell struct {
	Text, Sub string
	Mark      Mark
	Bar       float64
	HasBar    bool
}

// Layout of a figure of tables, in points at scale 1.
const (
	tableIndent = 8  // the tables' left edge, right of the figure's: room for a row's ► pointer
	cellBox     = 22 // a cell's height, one line
	cellSubBox  = 32 // with its second line
	cellPad     = 12 // around a cell's text
	cellGap     = 3
	rowGap      = 5
	tableGap    = 14
	tableTitle  = 20
	headRow     = 15
	noteLine    = 16
	barWidth    = 70 // a cell's bar
	minLabel    = 40
	labelShare  = 0.4 // the label column takes at most this share of the width
	charMin     = 6   // an inline character's least width
	cornerRoom  = 10  // more width for a cell with a corner sign (a check, a cross)
)

// tableItem is one placed thing of a table layout.
type tableItem struct {
	kind  int // itemTitle, itemHead, itemLabel, itemCell, itemNote
	r     rect
	text  string
	mark  Mark
	cell  Cell
	bold  bool
	inRow bool // an inline row's character
	first bool // a cell of the table's first row (a top-k list's top entry: its bar is darker)
}

const (
	itemTitle = iota
	itemHead
	itemLabel
	itemCell
	itemNote
)

// layoutTables places the tables one under the other at scale 1 inside width; it
// returns the items, the height and the right edge they take.
func layoutTables(ts []Table, width float64, wrap bool) (items []tableItem, height, right float64) {
	y := 0.0
	for ti, t := range ts {
		if ti > 0 {
			y += tableGap
		}
		if t.Title != "" {
			items = append(items, tableItem{kind: itemTitle, r: rect{0, y, width, tableTitle}, text: t.Title, mark: t.Mark})
			right = max(right, 12+textWidth(t.Title, bodySize, true))
			y += tableTitle
		}
		labelSize, labelBold := smallSize, false
		if t.BoldLabels {
			labelSize = bodySize
		}
		label := 0.0
		for _, r := range t.Rows {
			label = max(label, textWidth(r.Label, labelSize, labelBold)+12)
		}
		if label > 0 {
			label = min(labelShare*width, max(minLabel, label))
		}
		h := float64(cellBox)
		var cols []float64
		for _, r := range t.Rows {
			if r.Inline {
				continue
			}
			for i, c := range r.Cells {
				w := textWidth(c.Text, bodySize, false) + cellPad
				if c.Sub != "" && !c.HasBar {
					h = cellSubBox
					w = max(w, textWidth(c.Sub, smallSize, false)+cellPad)
				}
				if c.Mark&(Match|Wrong|Clipped|Finished) != 0 {
					w += cornerRoom // the corner sign beside the text
				}
				if c.HasBar {
					w = barWidth + 6 + textWidth(c.Text+"  "+c.Sub, bodySize, false) + cellPad
				}
				for len(cols) <= i {
					cols = append(cols, cellBox)
				}
				cols[i] = max(cols[i], w)
			}
		}
		for i := range t.Head {
			for len(cols) <= i {
				cols = append(cols, cellBox)
			}
			cols[i] = max(cols[i], textWidth(t.Head[i], smallSize, false)+8)
		}
		// the column blocks: all columns, or when wrap and they are wider than the
		// figure, as many as fit in each block, the blocks one under the other
		blocks := [][2]int{{0, len(cols)}}
		if wrap {
			blocks = blocks[:0]
			lo, x := 0, label
			for i, w := range cols {
				if x+w > width && i > lo {
					blocks = append(blocks, [2]int{lo, i})
					lo, x = i, label
				}
				x += w + cellGap
			}
			blocks = append(blocks, [2]int{lo, len(cols)})
		}
		for bi, b := range blocks {
			if bi > 0 {
				y += rowGap
			}
			if len(t.Head) > 0 {
				x := label
				for i := b[0]; i < min(b[1], len(t.Head)); i++ {
					items = append(items, tableItem{kind: itemHead, r: rect{x, y, cols[i], headRow}, text: t.Head[i]})
					x += cols[i] + cellGap
				}
				y += headRow
			}
			for ri, r := range t.Rows {
				if r.Inline && bi > 0 {
					continue
				}
				top := y
				x := label
				for i, c := range r.Cells {
					if r.Inline {
						w := max(charMin, textWidth(c.Text, bodySize, false)+1)
						if x+w > width && x > label {
							x, y = label, y+h+cellGap
						}
						items = append(items, tableItem{kind: itemCell, r: rect{x, y, w, h}, cell: c, inRow: true})
						x += w
					} else if i >= b[0] && i < b[1] {
						items = append(items, tableItem{kind: itemCell, r: rect{x, y, cols[i], h}, cell: c, first: ri == 0})
						x += cols[i] + cellGap
					}
					right = max(right, x)
				}
				items = append(items, tableItem{kind: itemLabel, r: rect{0, top, label, y + h - top}, text: r.Label, mark: r.Mark, bold: t.BoldLabels})
				y += h + rowGap
			}
		}
		for _, n := range t.Notes {
			items = append(items, tableItem{kind: itemNote, r: rect{0, y, width, noteLine}, text: n})
			right = max(right, textWidth(n, bodySize, false))
			y += noteLine
		}
	}
	return items, y, right
}

// fitTables chooses the scale of the tables on a cw × ch canvas: the largest at which
// they fit, up to maxScale. When they do not fit at minScale it leaves out the first
// tables (the earliest steps' first), then a single table's last rows, and says so in
// a note; dropped is how many tables it left out.
func fitTables(ts []Table, cw, ch vg.Length) (items []tableItem, s float64, dropped int) {
	cut := 0
	for {
		shown := ts[dropped:]
		if cut > 0 {
			t := shown[0]
			t.Rows = t.Rows[:len(t.Rows)-cut]
			t.Notes = append([]string{fmt.Sprintf("… %d more rows not shown", cut)}, t.Notes...)
			shown = []Table{t}
		}
		if dropped > 0 {
			shown = append([]Table(nil), shown...)
			shown[0].Notes = append([]string(nil), shown[0].Notes...)
			shown = append([]Table{{Notes: []string{fmt.Sprintf("(%d earlier tables above these are not shown)", dropped)}}}, shown...)
		}
		for _, wrap := range []bool{false, true} { // columns wrap only when they must
			for s = maxScale; s >= minScale*0.999; s *= 0.96 {
				items, h, w := layoutTables(shown, float64(cw)/s-tableIndent, wrap)
				if h*s <= float64(ch) && (w+tableIndent)*s <= float64(cw)+0.5 {
					return items, s, dropped
				}
			}
		}
		switch {
		case len(ts)-dropped > 1:
			dropped++
		case len(ts[dropped].Rows)-cut > 1:
			cut++
		default: // one row too wide even so: draw it at the least scale, clipped
			items, _, _ = layoutTables(shown, float64(cw)/minScale-tableIndent, true)
			return items, minScale, dropped
		}
	}
}

// drawTables draws the figure's tables under its title, fitted to the figure, and
// the union of their keys below them.
func drawTables(f Figure, o Options) (func(draw.Canvas), error) {
	return func(c draw.Canvas) {
		c = drawTitle(c, f.Title, card(c, o))
		cw := c.Max.X - c.Min.X
		key := keyOf(f.Tables)
		kh := vg.Length(keyRows(key, float64(cw)) * keyHeight)
		if kh > 0 {
			kh += vg.Points(6)
		}
		ch := c.Max.Y - c.Min.Y - kh
		if len(f.Tables) == 0 {
			pen{c: c, x0: c.Min.X, y0: c.Max.Y, s: 1}.text(0, 10, "nothing to show", bodySize, false, muted, draw.XLeft)
			return
		}
		items, s, dropped := fitTables(f.Tables, cw, ch)
		key = keyOf(f.Tables[dropped:]) // the key of the tables drawn
		if len(key) > 0 {
			kp := pen{c: c, x0: c.Min.X, y0: c.Min.Y + vg.Length(keyRows(key, float64(cw))*keyHeight), s: 1}
			kp.drawKey(key, 0, 0, float64(cw))
		}
		p := pen{c: c, x0: c.Min.X + tableIndent*vg.Length(s), y0: c.Max.Y, s: s}
		drawTableItems(p, items, float64(cw)/s-tableIndent)
	}, nil
}

// keyOf is the union of the tables' keys, in order.
func keyOf(ts []Table) []KeyEntry {
	var key []KeyEntry
	seen := map[KeyEntry]bool{}
	for _, t := range ts {
		for _, e := range t.Key {
			if !seen[e] {
				seen[e] = true
				key = append(key, e)
			}
		}
	}
	return key
}

// drawTableItems draws a table layout.
func drawTableItems(p pen, items []tableItem, width float64) {
	for _, it := range items {
		if it.kind == itemLabel && it.mark.Has(Current) {
			p.fill(rect{-tableIndent, it.r.y - 2, width + tableIndent, it.r.h + 4}, nowBand)
		}
	}
	for _, it := range items {
		r := it.r
		switch it.kind {
		case itemTitle:
			x := 0.0
			if it.mark.Has(Current) {
				p.pointer(8, r.y+r.h/2-2, 4.5)
				x = 12
			}
			p.text(x, r.y+r.h/2-2, it.text, bodySize, it.mark.Has(Current), ink, draw.XLeft)
		case itemHead:
			p.text(r.x+r.w/2, r.y+r.h/2, it.text, smallSize, false, muted, draw.XCenter)
		case itemLabel:
			if it.mark.Has(Current) {
				p.pointer(-1, r.y+cellBox/2, 4)
			}
			size, c := smallSize, muted
			if it.bold {
				size, c = bodySize, ink
			}
			p.text(2, r.y+min(r.h, cellSubBox)/2, it.text, size, it.bold || it.mark.Has(Current), c, draw.XLeft)
		case itemNote:
			p.text(0, r.y+r.h/2, it.text, bodySize, false, ink, draw.XLeft)
		case itemCell:
			drawCell(p, it)
		}
	}
}

// drawCell draws one cell: an inline character on its mark's tint, or a box with its
// text (and its second line, and its bar).
func drawCell(p pen, it tableItem) {
	c, r := it.cell, it.r
	if it.inRow {
		l := lookOf(c.Mark)
		if l.fill != white {
			p.fill(rect{r.x, r.y + 2, r.w, r.h - 4}, l.fill)
			p.decorate(rect{r.x, r.y + 2, r.w, r.h - 4}, c.Mark&^Current)
		}
		p.text(r.x+r.w/2, r.y+r.h/2, c.Text, bodySize, false, l.text, draw.XCenter)
		return
	}
	var l look
	if c.HasBar {
		l = lookOf(c.Mark)
		if c.Mark != 0 {
			p.box(r, c.Mark)
		}
		track := rect{r.x + 4, r.y + 4, barWidth, r.h - 8}
		p.fill(track, barTrack)
		fill := barFill
		if it.first {
			fill = barStrong
		}
		p.fill(rect{track.x, track.y, max(0.6, barWidth*min(1, max(0, c.Bar))), track.h}, fill)
		p.text(track.x+barWidth+6, r.y+r.h/2, c.Text, bodySize, false, l.text, draw.XLeft)
		if c.Sub != "" {
			p.text(track.x+barWidth+6+textWidth(c.Text+"  ", bodySize, false), r.y+r.h/2, c.Sub, smallSize, false, muted, draw.XLeft)
		}
		return
	}
	l = p.box(r, c.Mark)
	ty := r.y + r.h/2
	if c.Sub != "" {
		ty = r.y + 10
	}
	p.text(r.x+r.w/2, ty, c.Text, bodySize, l.bold, l.text, draw.XCenter)
	if c.Sub != "" {
		p.text(r.x+r.w/2, r.y+24, c.Sub, smallSize, false, muted, draw.XCenter)
	}
}
