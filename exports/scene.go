package exports

import (
	"strconv"

	"unroll/figures"
	"unroll/lessons"
)

// sceneShape is one shape of a scene panel's static "scene" (scene.js).
type sceneShape struct {
	Row    int    `json:"row"`
	Col    int    `json:"col"`
	Colour string `json:"colour"`
	Shape  string `json:"shape"`
}

// sceneRowWords and sceneColWords name a 3 × 3 grid's rows and columns as the
// captions' grammar does; a larger grid is numbered.
var (
	sceneRowWords = []string{"top", "middle", "bottom"}
	sceneColWords = []string{"left", "centre", "right"}
)

// sceneFigure draws a scene panel (scene.js) as a grid table: a row per grid row, a
// column per grid column, each cell naming the shape in it (colour and kind), empty
// cells blank.
func sceneFigure(v View, p lessons.Panel) (figures.Figure, error) {
	var shapes []sceneShape
	var grid int
	if !staticOf(v, p, "scene", &shapes) || !staticOf(v, p, "grid", &grid) || grid < 1 {
		return figures.Figure{}, errNoData(p, "no scene")
	}
	name := func(words []string, i int) string {
		if len(words) == grid {
			return words[i]
		}
		return strconv.Itoa(i + 1)
	}
	t := figures.Table{}
	for c := range grid {
		t.Head = append(t.Head, name(sceneColWords, c))
	}
	for r := range grid {
		row := figures.Row{Label: name(sceneRowWords, r)}
		for c := range grid {
			cell := figures.Cell{Mark: figures.Pending}
			for _, s := range shapes {
				if s.Row == r && s.Col == c {
					cell = figures.Cell{Text: s.Colour + " " + s.Shape, Mark: figures.Done}
				}
			}
			row.Cells = append(row.Cells, cell)
		}
		t.Rows = append(t.Rows, row)
	}
	return figures.Figure{Title: Text(p.Title), Tables: []figures.Table{t}}, nil
}
