// Package palette is the one palette of Unroll: the categorical colours of curves and
// bars (Okabe–Ito), the dash and marker that go with each, the stable style of every
// role a lesson compares (LSTM, GRU and RNN; unidirectional and bidirectional; teacher
// forcing and free running; …), the marks of correct and wrong tokens, and the
// sequential (viridis) and diverging (blue–orange) colour maps.
//
// It is the source: package figures reads it directly, and the pages read
// static/js/palette.js, which JS generates from it (go generate; a test fails when the
// file is stale). Its tests simulate protanopia, deuteranopia and tritanopia on it.
package palette

//go:generate go run ./gen ../static/js/palette.js

import (
	"fmt"
	"image/color"
	"strings"
	"unicode"
)

// RGB is an sRGB colour, 8 bits a channel.
type RGB struct{ R, G, B uint8 }

// Hex is the colour as CSS writes it, e.g. "#0072b2".
func (c RGB) Hex() string { return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B) }

// RGBA is the opaque colour for image/color (gonum/plot).
func (c RGB) RGBA() color.RGBA { return color.RGBA{c.R, c.G, c.B, 0xff} }

// Tint mixes c with white: f = 0 is c, f = 1 white (in sRGB, as CSS mixes).
func (c RGB) Tint(f float64) RGB {
	mix := func(v uint8) uint8 { return uint8(float64(v) + (255-float64(v))*f + 0.5) }
	return RGB{mix(c.R), mix(c.G), mix(c.B)}
}

// The Okabe–Ito colours (Okabe and Ito, "Color Universal Design", 2002/2008).
var (
	Black         = RGB{0x00, 0x00, 0x00}
	Orange        = RGB{0xe6, 0x9f, 0x00}
	SkyBlue       = RGB{0x56, 0xb4, 0xe9}
	BluishGreen   = RGB{0x00, 0x9e, 0x73}
	Yellow        = RGB{0xf0, 0xe4, 0x42}
	Blue          = RGB{0x00, 0x72, 0xb2}
	Vermillion    = RGB{0xd5, 0x5e, 0x00}
	ReddishPurple = RGB{0xcc, 0x79, 0xa7}
)

// Categorical lists the colours of curves, bars and points, in the order series
// without a role take them. Yellow is left out: on white it is too faint for a line.
var Categorical = []RGB{Blue, Orange, BluishGreen, Vermillion, ReddishPurple, SkyBlue, Black}

// Rest is the neutral grey of what no colour names: the class "function word" of the
// embedding map, the last of its classes, drawn under the others. Light: the grey of
// Tailwind (#9ca3af) was within ΔE00 3 of reddish purple under deuteranopia.
var Rest = RGB{0xc0, 0xc0, 0xc0}

// Dashes are the dash patterns of lines, in points in an export and in drawing pixels
// on a page (nil: solid). A line's dash tells it apart where colour cannot: in
// greyscale print, for a reader with a colour-vision deficiency, where two curves
// coincide.
var Dashes = [][]float64{nil, {6, 3}, {2, 2}, {8, 3, 2, 3}}

// Marker is the shape drawn at a line's points and in its legend.
type Marker string

// The markers, in the order Markers gives them.
const (
	Circle   Marker = "circle"
	Square   Marker = "square"
	Triangle Marker = "triangle"
	Diamond  Marker = "diamond"
	Cross    Marker = "cross"
)

// Markers are the point shapes, in the order series without a role take them.
var Markers = []Marker{Circle, Square, Triangle, Diamond, Cross}

// Style is how one series is drawn: its colour, and its dash and marker as indices
// into Dashes and Markers.
type Style struct {
	Colour RGB
	Dash   int
	Marker int
}

// Role is a thing a lesson compares across panels and pages, drawn in one Style
// everywhere. A series takes the role whose alias appears first in its label (or its
// array's name) as a whole word, case ignored: "LSTM C_t" and "GRU ‖∂L/∂H_t‖" are the
// LSTM and the GRU.
type Role struct {
	Name    string
	Aliases []string // lower case; whole words of a label
	Style   Style
}

// Roles are the stable styles. The models keep the first three colours. In the
// comparisons of one model with a variant, the one that sees more (both directions,
// the source through attention, the labels while decoding) is sky blue and solid, the
// one that sees less reddish purple and dashed. Beam search's best is vermillion and
// greedy's path dashed orange, as the beam-search lesson's tree and prose have them.
var Roles = []Role{
	{"LSTM", []string{"lstm"}, Style{Blue, 0, 0}},
	{"GRU", []string{"gru"}, Style{Orange, 1, 1}},
	{"RNN", []string{"rnn", "vanilla rnn"}, Style{BluishGreen, 2, 2}},
	{"bidirectional", []string{"bidirectional"}, Style{SkyBlue, 0, 0}},
	{"unidirectional", []string{"unidirectional"}, Style{ReddishPurple, 1, 1}},
	{"with attention", []string{"with attention"}, Style{SkyBlue, 0, 0}},
	{"without attention", []string{"without attention"}, Style{ReddishPurple, 1, 1}},
	{"teacher forcing", []string{"teacher forcing", "teacher-forced"}, Style{SkyBlue, 0, 0}},
	{"free running", []string{"free running", "free-running"}, Style{ReddishPurple, 1, 1}},
	{"beam search", []string{"beam search", "beam"}, Style{Vermillion, 0, 3}},
	{"greedy", []string{"greedy"}, Style{Orange, 1, 1}},
	{"exhaustive", []string{"exhaustive"}, Style{Black, 2, 4}},
	{"English", []string{"english"}, Style{Blue, 0, 0}},
	{"French", []string{"french"}, Style{Vermillion, 1, 1}},
}

// Verdict is how a correct or a wrong token is marked: a colour, a light fill of it
// for the token's box, and a mark drawn beside the token, so the verdict does not
// rest on colour alone.
type Verdict struct {
	Line RGB
	Fill RGB
	Mark string
}

// verdictTint is how far a verdict's fill is mixed towards white: light enough for
// black text on it (contrast above 7:1).
const verdictTint = 0.8

// Correct and Wrong mark tokens that match the reference and tokens that do not.
var (
	Correct = Verdict{BluishGreen, BluishGreen.Tint(verdictTint), "✓"}
	Wrong   = Verdict{Vermillion, Vermillion.Tint(verdictTint), "✗"}
)

// Viridis is the sequential map for values in a range such as gates in (0, 1): the
// nine stops of matplotlib's viridis at 0, 1/8, …, 1 (van der Walt and Smith), dark
// violet to yellow, its lightness rising with the value.
var Viridis = []RGB{
	{0x44, 0x01, 0x54}, {0x47, 0x2d, 0x7b}, {0x3b, 0x52, 0x8b}, {0x2c, 0x72, 0x8e}, {0x21, 0x91, 0x8c},
	{0x28, 0xae, 0x80}, {0x5e, 0xc9, 0x62}, {0xad, 0xdc, 0x30}, {0xfd, 0xe7, 0x25},
}

// BlueOrange is the diverging map for values around 0 (tanh outputs, states): blue
// below 0, near white at 0, orange above; the blue half is ColorBrewer's RdBu, the
// orange half its PuOr. Blue and orange differ along the blue–yellow axis, which
// protanopes and deuteranopes keep, so its ends stay apart where red–blue would not.
var BlueOrange = []RGB{
	{0x21, 0x66, 0xac}, {0x43, 0x93, 0xc3}, {0x92, 0xc5, 0xde}, {0xd1, 0xe5, 0xf0}, {0xf7, 0xf7, 0xf7},
	{0xfe, 0xe0, 0xb6}, {0xfd, 0xb8, 0x63}, {0xe0, 0x82, 0x14}, {0xb3, 0x58, 0x06},
}

// The captioning lesson's image v (data/scenes.go), as its scene panel and the
// panel's export draw it: the shapes' paint by colour word, on a dark ground (the
// raster's black, softened: what the encoder sees is black where no shape is) ruled
// into cells by SceneLines. The words are the lesson's static "colours"; a word
// without a paint is drawn in SceneUnknown.
var (
	SceneGround  = RGB{0x11, 0x18, 0x27}
	SceneLines   = RGB{0x4b, 0x55, 0x63}
	SceneUnknown = RGB{0x6b, 0x72, 0x80}
	ScenePaint   = map[string]RGB{
		"red":    {0xef, 0x44, 0x44},
		"green":  {0x22, 0xc5, 0x5e},
		"blue":   {0x3b, 0x82, 0xf6},
		"yellow": {0xfa, 0xcc, 0x15},
	}
)

// RoleOf is the role whose alias appears first in label as a whole word (case
// ignored; a word is a run of letters and digits, "-" and " " inside an alias match
// themselves), and whether there is one. At one position the longer alias wins.
func RoleOf(label string) (Role, bool) {
	s := strings.ToLower(label)
	best, at, length := -1, len(s)+1, 0
	for i, r := range Roles {
		for _, a := range r.Aliases {
			for from := 0; from < len(s); {
				j := strings.Index(s[from:], a)
				if j < 0 {
					break
				}
				j += from
				if wordEdge(s, j, true) && wordEdge(s, j+len(a), false) && (j < at || j == at && len(a) > length) {
					best, at, length = i, j, len(a)
				}
				from = j + 1
			}
		}
	}
	if best < 0 {
		return Role{}, false
	}
	return Roles[best], true
}

// wordEdge says whether position i of s is the edge of a word: the start of s or a
// non-word byte before it (before), the end of s or a non-word rune at it (after).
func wordEdge(s string, i int, before bool) bool {
	if before {
		if i == 0 {
			return true
		}
		r := rune(s[i-1])
		if s[i-1] >= 0x80 { // inside a multi-byte rune: find its start
			r = []rune(s[:i])[len([]rune(s[:i]))-1]
		}
		return !isWord(r)
	}
	if i >= len(s) {
		return true
	}
	return !isWord([]rune(s[i:])[0])
}

// isWord: letters and numbers, as JavaScript's /[\p{L}\p{N}]/u.
func isWord(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }

// Assign gives the series of one panel or figure their styles, from their labels in
// order: a series with a role takes its role's style; a second series of the same role
// (the LSTM's ‖∂L/∂C_t‖ beside its ‖∂L/∂H_t‖) keeps the colour and takes the first dash
// and the first marker no role of the panel uses; the others take, in order, the
// categorical colours no role of the panel holds, with dashes and markers in order.
func Assign(labels []string) []Style {
	out := make([]Style, len(labels))
	roles := make([]int, len(labels)) // index into Roles, or -1
	held := map[RGB]bool{}
	dashUsed, markerUsed := map[int]bool{}, map[int]bool{}
	for i, l := range labels {
		roles[i] = -1
		if r, ok := RoleOf(l); ok {
			for k := range Roles {
				if Roles[k].Name == r.Name {
					roles[i] = k
				}
			}
			held[r.Style.Colour] = true
			dashUsed[r.Style.Dash], markerUsed[r.Style.Marker] = true, true
		}
	}
	var free []RGB
	for _, c := range Categorical {
		if !held[c] {
			free = append(free, c)
		}
	}
	if len(free) == 0 {
		free = Categorical
	}
	unused := func(used map[int]bool, n int) int {
		for i := range n {
			if !used[i] {
				used[i] = true
				return i
			}
		}
		return 0
	}
	seen := map[int]bool{}
	next := 0
	for i := range labels {
		if k := roles[i]; k >= 0 {
			st := Roles[k].Style
			if seen[k] {
				st.Dash, st.Marker = unused(dashUsed, len(Dashes)), unused(markerUsed, len(Markers))
			}
			seen[k] = true
			out[i] = st
			continue
		}
		out[i] = Style{free[next%len(free)], next % len(Dashes), next % len(Markers)}
		next++
	}
	return out
}
