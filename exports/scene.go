package exports

import (
	"bytes"
	"encoding/csv"
	"strconv"

	"unroll/figures"
	"unroll/lessons"
	"unroll/palette"
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

// sceneOf is a scene panel's static image: its shapes and the cells a side.
func sceneOf(v View, p lessons.Panel) ([]sceneShape, int, error) {
	var shapes []sceneShape
	var grid int
	if !staticOf(v, p, "scene", &shapes) || !staticOf(v, p, "grid", &grid) || grid < 1 {
		return nil, 0, errNoData(p, "no scene")
	}
	return shapes, grid, nil
}

// sceneName is row or column i of a grid of n cells a side: the grammar's word on a
// 3 × 3 grid, else its number from 1.
func sceneName(words []string, n, i int) string {
	if len(words) == n {
		return words[i]
	}
	return strconv.Itoa(i + 1)
}

// sceneFigure draws a scene panel (scene.js) as the page draws its image: the grid on
// its dark ground with each shape in its cell, in the palette's paint for its colour
// word (palette.ScenePaint, which scene.js draws with too), the rows and columns named
// by the grammar's position words. The brush under the page's grid is a control, not
// part of the image, and is left out.
func sceneFigure(v View, p lessons.Panel) (figures.Figure, error) {
	shapes, grid, err := sceneOf(v, p)
	if err != nil {
		return figures.Figure{}, err
	}
	s := figures.Scene{Grid: grid}
	for i := range grid {
		s.Rows = append(s.Rows, sceneName(sceneRowWords, grid, i))
		s.Cols = append(s.Cols, sceneName(sceneColWords, grid, i))
	}
	for _, sh := range shapes {
		if sh.Row < 0 || sh.Row >= grid || sh.Col < 0 || sh.Col >= grid {
			continue // the page draws no shape outside its grid
		}
		paint, ok := palette.ScenePaint[sh.Colour]
		if !ok {
			paint = palette.SceneUnknown
		}
		s.Shapes = append(s.Shapes, figures.SceneShape{Row: sh.Row, Col: sh.Col, Kind: palette.Marker(sh.Shape), Paint: paint.RGBA()})
	}
	return figures.Figure{Title: Text(p.Title), Scene: &s}, nil
}

// sceneCSV is a scene panel's image as CSV, one row per cell in reading order: its
// row and column (from 1, as the page's image field writes them), their position
// words, and the colour and shape in it (both empty for an empty cell).
func sceneCSV(v View, p lessons.Panel) []byte {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	_ = w.Write([]string{"row", "column", "row word", "column word", "colour", "shape"})
	shapes, grid, err := sceneOf(v, p)
	if err == nil {
		for r := range grid {
			for c := range grid {
				colour, shape := "", ""
				for _, sh := range shapes {
					if sh.Row == r && sh.Col == c {
						colour, shape = sh.Colour, sh.Shape
					}
				}
				_ = w.Write([]string{strconv.Itoa(r + 1), strconv.Itoa(c + 1), sceneName(sceneRowWords, grid, r), sceneName(sceneColWords, grid, c), colour, shape})
			}
		}
	}
	w.Flush()
	return buf.Bytes()
}
