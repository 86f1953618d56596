package data

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"unroll/models"
)

// The world of the captioning lesson (seed 002 "Vector to sequence RNN models", seed
// 003 "Image Captioning"): one or two coloured shapes on a SceneGrid × SceneGrid grid,
// rendered as a small RGB raster, each image with one caption from a grammar:
//
//	one shape:  "a red circle at the top left", "a blue square in the centre"
//	two shapes: "a red circle left of a blue square" (different columns: the left one
//	            first), "a green triangle above a yellow circle" (one column: the top
//	            one first)
//
// Every caption is true of its image, and the canonical order (left before right, top
// before bottom) makes it the only one the grammar writes, so a generated caption is
// right or wrong by exact match.
const (
	SceneGrid     = 3 // cells per side: the position words top/middle/bottom, left/centre/right
	ScenePixels   = 5 // pixels per cell side: enough to tell a circle, a square and a triangle apart
	SceneChannels = 3 // red, green, blue
	SceneSide     = SceneGrid * ScenePixels
	// SceneInputSize is the length of a rendered image v: SceneSide² pixels × 3 channels.
	SceneInputSize = SceneSide * SceneSide * SceneChannels
	// SceneMaxShapes is the most shapes in one image: the grammar describes one or two.
	SceneMaxShapes = 2
)

// SceneColours and SceneShapes are the words for the shapes' colours and kinds, in
// the order of SceneShape.Colour and SceneShape.Kind.
var (
	SceneColours = []string{"red", "green", "blue", "yellow"}
	SceneShapes  = []string{"circle", "square", "triangle"}
)

// sceneRGB is each colour's pixel value.
var sceneRGB = [][SceneChannels]float64{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 0}}

// sceneMasks are the shapes' pixels in a cell, one string per pixel row.
var sceneMasks = [][ScenePixels]string{
	{".###.", "#####", "#####", "#####", ".###."}, // circle
	{"#####", "#...#", "#...#", "#...#", "#####"}, // square, drawn as its outline
	{"..#..", ".###.", ".###.", "#####", "#####"}, // triangle
}

// The position words of a single shape: rows top to bottom, columns left to right.
var (
	sceneRowWords = []string{"top", "middle", "bottom"}
	sceneColWords = []string{"left", "centre", "right"}
)

// CaptionVocab is the captions' vocabulary: models' four special tokens first, then
// every word of the grammar.
var CaptionVocab = func() *models.Vocab {
	words := []string{models.UnkToken, models.PadToken, models.BosToken, models.EosToken, "a", "at", "the", "in", "of", "left", "above"}
	words = append(words, SceneColours...)
	words = append(words, SceneShapes...)
	for _, w := range slices.Concat(sceneRowWords, sceneColWords) {
		if !slices.Contains(words, w) {
			words = append(words, w)
		}
	}
	v, err := models.VocabFromList(words)
	if err != nil {
		panic(err)
	}
	return v
}()

// CaptionMaxLen is the longest caption in words ("a red circle left of a blue square"),
// without <eos>.
const CaptionMaxLen = 8

// SceneShape is one shape of an image: its cell (0-based, row 0 at the top) and its
// colour and kind (indices into SceneColours and SceneShapes).
type SceneShape struct {
	Row, Col     int
	Colour, Kind int
}

// Name is "red circle".
func (s SceneShape) Name() string { return SceneColours[s.Colour] + " " + SceneShapes[s.Kind] }

// Scene is one image of the world: one or two shapes in different cells, kept in
// reading order (row by row, left to right).
type Scene struct {
	Shapes []SceneShape
}

// newScene orders the shapes by cell.
func newScene(shapes ...SceneShape) Scene {
	s := Scene{Shapes: slices.Clone(shapes)}
	slices.SortFunc(s.Shapes, func(a, b SceneShape) int { return (a.Row*SceneGrid + a.Col) - (b.Row*SceneGrid + b.Col) })
	return s
}

// String is the scene in the page's text form, "red circle 1 1, blue square 2 3":
// colour, kind, row and column from 1, shapes in reading order (ParseScene reads it).
func (s Scene) String() string {
	parts := make([]string, len(s.Shapes))
	for i, sh := range s.Shapes {
		parts[i] = fmt.Sprintf("%s %d %d", sh.Name(), sh.Row+1, sh.Col+1)
	}
	return strings.Join(parts, ", ")
}

// At is the shape in cell (row, col), if any.
func (s Scene) At(row, col int) (SceneShape, bool) {
	for _, sh := range s.Shapes {
		if sh.Row == row && sh.Col == col {
			return sh, true
		}
	}
	return SceneShape{}, false
}

// Caption is the grammar's caption of the scene, in words (see the top of this file).
func (s Scene) Caption() []string {
	a := func(sh SceneShape) []string { return []string{"a", SceneColours[sh.Colour], SceneShapes[sh.Kind]} }
	if len(s.Shapes) == 1 {
		sh := s.Shapes[0]
		if sh.Row == 1 && sh.Col == 1 {
			return append(a(sh), "in", "the", "centre")
		}
		return append(a(sh), "at", "the", sceneRowWords[sh.Row], sceneColWords[sh.Col])
	}
	first, second := s.Shapes[0], s.Shapes[1]
	if first.Col == second.Col { // one above the other: reading order puts the top one first
		return slices.Concat(a(first), []string{"above"}, a(second))
	}
	if second.Col < first.Col {
		first, second = second, first
	}
	return slices.Concat(a(first), []string{"left", "of"}, a(second))
}

// CaptionText is the caption as one string.
func (s Scene) CaptionText() string { return strings.Join(s.Caption(), " ") }

// CaptionIDs is the caption's token ids followed by <eos>: the decoder's labels.
func (s Scene) CaptionIDs() []int {
	return append(CaptionVocab.IDs(s.Caption()), models.EosID)
}

// Render is the image v as the encoder reads it: SceneInputSize values in [0, 1],
// pixel (y, x) of channel c at (y·SceneSide + x)·3 + c, black where there is no shape.
func (s Scene) Render() []float64 {
	v := make([]float64, SceneInputSize)
	for _, sh := range s.Shapes {
		for dy, line := range sceneMasks[sh.Kind] {
			for dx, p := range line {
				if p != '#' {
					continue
				}
				y, x := sh.Row*ScenePixels+dy, sh.Col*ScenePixels+dx
				copy(v[(y*SceneSide+x)*SceneChannels:], sceneRGB[sh.Colour][:])
			}
		}
	}
	return v
}

// SceneHeldOut reports whether an image is kept out of training: a fixed fifth of
// the world, chosen by a hash of its text form, so that held-out scores are measured
// on images no model has seen (each shape, colour and cell has been seen, in other
// combinations).
func SceneHeldOut(s Scene) bool {
	h := fnv.New32a()
	h.Write([]byte(s.String()))
	return h.Sum32()%5 == 0
}

// AllScenes is the whole world in a fixed order: every single shape in every cell,
// then every pair of shapes in two different cells.
func AllScenes() []Scene {
	var kinds []SceneShape // colour × kind, cell unset
	for c := range SceneColours {
		for k := range SceneShapes {
			kinds = append(kinds, SceneShape{Colour: c, Kind: k})
		}
	}
	var out []Scene
	cells := SceneGrid * SceneGrid
	for cell := range cells {
		for _, k := range kinds {
			k.Row, k.Col = cell/SceneGrid, cell%SceneGrid
			out = append(out, newScene(k))
		}
	}
	for c1 := range cells {
		for c2 := c1 + 1; c2 < cells; c2++ {
			for _, k1 := range kinds {
				for _, k2 := range kinds {
					k1.Row, k1.Col = c1/SceneGrid, c1%SceneGrid
					k2.Row, k2.Col = c2/SceneGrid, c2%SceneGrid
					out = append(out, newScene(k1, k2))
				}
			}
		}
	}
	return out
}

// SceneSplit is the world split once: the training images and the held-out ones, each
// in AllScenes order.
type SceneSplit struct{ Train, Test []Scene }

// Scenes splits AllScenes by SceneHeldOut.
func Scenes() SceneSplit {
	var s SceneSplit
	for _, sc := range AllScenes() {
		if SceneHeldOut(sc) {
			s.Test = append(s.Test, sc)
		} else {
			s.Train = append(s.Train, sc)
		}
	}
	return s
}

// sceneOneShare is the share of training draws with one shape: the world has 108
// single-shape images and 10,368 pairs, so drawing uniformly would almost never show
// the position words.
const sceneOneShare = 0.25

// DrawScene draws a training image from rng: one shape with probability
// sceneOneShare, else two in different cells, never a held-out image.
func DrawScene(rng *rand.Rand) Scene {
	draw := func() SceneShape {
		cell := rng.IntN(SceneGrid * SceneGrid)
		return SceneShape{Row: cell / SceneGrid, Col: cell % SceneGrid, Colour: rng.IntN(len(SceneColours)), Kind: rng.IntN(len(SceneShapes))}
	}
	for {
		a := draw()
		s := newScene(a)
		if rng.Float64() >= sceneOneShare {
			b := draw()
			if b.Row == a.Row && b.Col == a.Col {
				continue
			}
			s = newScene(a, b)
		}
		if !SceneHeldOut(s) {
			return s
		}
	}
}

// Errors of ParseScene.
var (
	ErrSceneEmpty = errors.New("data: an image needs one or two shapes, e.g. “red circle 1 1, blue square 2 3”")
	ErrSceneFull  = fmt.Errorf("data: at most %d shapes: the captions' grammar describes one or two", SceneMaxShapes)
)

// ParseScene reads the text form of String: shapes separated by commas, each
// "colour kind row column" with row and column from 1 to SceneGrid, no two in one cell.
func ParseScene(text string) (Scene, error) {
	var shapes []SceneShape
	for part := range strings.SplitSeq(text, ",") {
		f := strings.Fields(strings.ToLower(part))
		if len(f) == 0 {
			continue
		}
		if len(shapes) == SceneMaxShapes {
			return Scene{}, ErrSceneFull
		}
		if len(f) != 4 {
			return Scene{}, fmt.Errorf("data: %q: a shape is “colour kind row column”, e.g. “red circle 1 1”", strings.TrimSpace(part))
		}
		sh := SceneShape{Colour: slices.Index(SceneColours, f[0]), Kind: slices.Index(SceneShapes, f[1])}
		if sh.Colour < 0 {
			return Scene{}, fmt.Errorf("data: colour %q: the colours are %s", clipWord(f[0]), strings.Join(SceneColours, ", "))
		}
		if sh.Kind < 0 {
			return Scene{}, fmt.Errorf("data: shape %q: the shapes are %s", clipWord(f[1]), strings.Join(SceneShapes, ", "))
		}
		var err1, err2 error
		sh.Row, err1 = strconv.Atoi(f[2])
		sh.Col, err2 = strconv.Atoi(f[3])
		if err1 != nil || err2 != nil || sh.Row < 1 || sh.Row > SceneGrid || sh.Col < 1 || sh.Col > SceneGrid {
			return Scene{}, fmt.Errorf("data: %q: row and column are whole numbers from 1 to %d", strings.TrimSpace(part), SceneGrid)
		}
		sh.Row, sh.Col = sh.Row-1, sh.Col-1
		for _, o := range shapes {
			if o.Row == sh.Row && o.Col == sh.Col {
				return Scene{}, fmt.Errorf("data: two shapes in row %d, column %d: one cell holds one shape", sh.Row+1, sh.Col+1)
			}
		}
		shapes = append(shapes, sh)
	}
	if len(shapes) == 0 {
		return Scene{}, ErrSceneEmpty
	}
	return newScene(shapes...), nil
}
