package exports

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"unroll/figures"
	"unroll/lessons"
	"unroll/sim"
)

// figureOf draws one panel kind: the panel's figure in view v.
type figureOf func(v View, p lessons.Panel) (figures.Figure, error)

// kinds lists what each panel kind exports; a kind missing here has no export yet.
var kinds = map[lessons.PanelKind]figureOf{
	lessons.Heatmap:   heatmapFigure,
	lessons.Alignment: alignmentFigure,
	lessons.Line:      lineFigure,
	lessons.Bars:      barsFigure,
	lessons.Scatter:   scatterFigure,
	lessons.Table:     tableFigure,
	lessons.TopK:      topkFigure,
	lessons.TopKs:     topksFigure,
	lessons.Tokens:    tokensFigure,
	lessons.NGrams:    ngramsFigure,
	lessons.Graph:     graphFigure,
	lessons.Tree:      treeFigure,
	lessons.EncDec:    encdecFigure,
	lessons.Samples:   samplesFigure,
	lessons.Scene:     sceneFigure,
}

// TrainingLoss is the page's training-loss panel, which every lesson that trains has
// under its training controls (not one of its Panels): the loss L of each step.
var TrainingLoss = lessons.Panel{ID: "loss", Kind: lessons.Line, Title: `training loss \(L\)`, LogY: true}

// Extra is an export of what a page draws beside its declared panels: its figure and
// its numbers, and the panel (by ID) under which the page offers it ("" for one of
// its own, such as the training loss).
type Extra struct {
	Panel lessons.Panel
	Under string
	Menu  string // the menu's name on the page, e.g. "Export the BLEU curve"
	draw  figureOf
	csv   func(View) []byte
}

// Extras are lesson l's extra exports: the training loss when it trains, and the
// held-out BLEU curve of each samples panel (a curve on the page, beside the sample
// translations that panel's own export shows).
func Extras(l *lessons.Lesson) []Extra {
	var out []Extra
	if l.Trains {
		out = append(out, Extra{Panel: TrainingLoss, Menu: "Export", draw: lossFigure, csv: lossCSV})
	}
	for _, p := range l.Panels {
		if p.Kind == lessons.Samples && slices.Contains(p.Static, "bleu_curve") {
			c := lessons.Panel{ID: p.ID + "-bleu", Kind: lessons.Line, Title: "held-out BLEU against training steps", Static: []string{"bleu_curve"}}
			out = append(out, Extra{Panel: c, Under: p.ID, Menu: "Export the BLEU curve", draw: bleuCurveFigure, csv: func(v View) []byte { return bleuCurveCSV(v, c) }})
		}
	}
	return out
}

// extraOf is the extra export of lesson l with panel p, if p is one.
func extraOf(l *lessons.Lesson, p lessons.Panel) (Extra, bool) {
	for _, e := range Extras(l) {
		if e.Panel.ID == p.ID && len(p.Arrays) == 0 && p.Kind == e.Panel.Kind {
			return e, true
		}
	}
	return Extra{}, false
}

// Exportable reports whether panel p of its lesson can be exported.
func Exportable(p lessons.Panel) bool {
	_, ok := kinds[p.Kind]
	return ok
}

// Panels are the exportable panels of lesson l, in page order, its Extras last.
func Panels(l *lessons.Lesson) []lessons.Panel {
	var out []lessons.Panel
	for _, p := range l.Panels {
		if Exportable(p) {
			out = append(out, p)
		}
	}
	for _, e := range Extras(l) {
		out = append(out, e.Panel)
	}
	return out
}

// Shown are the exportable panels the page shows at the parameter values v: those
// without a condition, and those whose condition (a notation switch) holds.
func Shown(l *lessons.Lesson, v sim.Values) []lessons.Panel {
	return slices.DeleteFunc(Panels(l), func(p lessons.Panel) bool { return !p.When.Holds(v) })
}

// Panel is panel p's figure in view v: what the page's panel shows at v's step, from
// the same arrays, on the same fixed scale.
func Panel(v View, p lessons.Panel) (figures.Figure, error) {
	if Lacks(v, p) {
		return figures.Figure{}, fmt.Errorf("exports: this model has none of the values the panel %q shows (%s), so the page does not show it", p.ID, strings.Join(p.Arrays, ", "))
	}
	if e, ok := extraOf(v.Lesson, p); ok {
		return e.draw(v, p)
	}
	f, ok := kinds[p.Kind]
	if !ok {
		return figures.Figure{}, fmt.Errorf("exports: the %s panel %q cannot be exported yet", p.Kind, p.ID)
	}
	return f(v, p)
}

// Lacks reports whether p is an Optional panel (lessons.Panel.Optional) none of whose
// arrays v's model produces, as its static "arrays" lists them: the page hides it, and
// the figure pack leaves it out.
func Lacks(v View, p lessons.Panel) bool {
	if !p.Optional {
		return false
	}
	has, _ := v.Static.Meta["arrays"].([]string)
	for _, a := range p.Arrays {
		if slices.Contains(has, a) {
			return false
		}
	}
	return true
}

// Find is lesson l's panel with the given ID, and whether it has one.
func Find(l *lessons.Lesson, id string) (lessons.Panel, bool) {
	ps := Panels(l)
	i := slices.IndexFunc(ps, func(p lessons.Panel) bool { return p.ID == id })
	if i < 0 {
		return lessons.Panel{}, false
	}
	return ps[i], true
}

// Text is a page title or label (prose with inline TeX between \( and \)) as a
// figure's text: as it is, which figures typesets, or, where it uses TeX the figures'
// typesetter does not know (\mathrm, \sqrt …), in Unicode (lessons.PlainLabel).
func Text(s string) string {
	if figures.CheckText(s) != nil {
		return lessons.PlainLabel(s)
	}
	return s
}

// scaleOf is the panel's fixed value range, if it has one: the static "scales" the
// lesson sets for this view (when the panel reads them), else its contract's.
func scaleOf(v View, p lessons.Panel) ([]float64, bool) {
	if slices.Contains(p.Static, "scales") {
		if all, ok := v.Static.Meta["scales"].(map[string][]float64); ok && len(all[p.ID]) == 2 {
			return all[p.ID], true
		}
	}
	c := v.Lesson.Contract(p)
	return c.Scale, len(c.Scale) == 2
}

// fitted is the page's fitted scale for values without a fixed one: their range, made
// symmetric around 0 when they change sign, widened by 1 when flat.
func fitted(values []float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, x := range values {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			lo, hi = min(lo, x), max(hi, x)
		}
	}
	if !(lo <= hi) {
		return 0, 1
	}
	if lo < 0 && hi > 0 {
		m := max(-lo, hi)
		lo, hi = -m, m
	}
	if lo == hi {
		lo, hi = lo-1, hi+1
	}
	return lo, hi
}

// rangeOf is the panel's fixed scale, else the values' fitted one.
func rangeOf(v View, p lessons.Panel, values []float64) (lo, hi float64) {
	if s, ok := scaleOf(v, p); ok {
		return s[0], s[1]
	}
	return fitted(values)
}

// stepTitle is the figure's title: the panel's, with the step it shows.
func stepTitle(v View, p lessons.Panel) string {
	title := Text(p.Title)
	if v.Step() > 0 {
		title += " — step " + strconv.Itoa(v.Step()) + " of " + strconv.Itoa(v.Steps)
	}
	return title
}

// legendOf is the name of the panel's i-th array in legends: its Legend entry, else
// the array's label.
func legendOf(v View, p lessons.Panel, i int) string {
	if i < len(p.Legend) && p.Legend[i] != "" {
		return Text(p.Legend[i])
	}
	return Text(v.label(p.Arrays[i]))
}
