// Package templates renders Unroll's HTML pages with templ: the index and one page per
// lesson. Templates take plain values and carry data-testid attributes for the tests;
// everything live is drawn by the modules in package static.
package templates

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/a-h/templ"

	panelexports "unroll/exports"
	"unroll/lessons"
	"unroll/sim"
)

// catalog is the lesson list for the navigation bar, computed once: the catalog is
// fixed for the life of the process.
var catalog = sync.OnceValue(lessons.Catalog)

// num formats a parameter bound for an HTML attribute: the shortest exact form.
func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// symbols lists an equation's live symbols as "id:Array id:Array" for the page module.
func symbols(ss []lessons.Symbol) string {
	parts := make([]string, len(ss))
	for i, s := range ss {
		parts[i] = s.ID + ":" + s.Array
	}
	return strings.Join(parts, " ")
}

// plotHref is the export URL of one plot in one format for the page's state.
func plotHref(slug, plot, format, query string) string {
	u := "/lessons/" + slug + "/plots/" + plot + "." + format
	if query != "" {
		u += "?" + query
	}
	return u
}

// sharedParam reports parameters the shared control bar edits (the seed), which the
// lesson's own parameter list leaves out.
func sharedParam(name string) bool { return name == "seed" }

// whenAttrs carries a parameter's condition (sim.ParamSpec.When) to the page as data
// on its .param box: static/js/params.js disables the control while the condition
// does not hold and shows the reason (the box's .applies-note).
func whenAttrs(s sim.ParamSpec) templ.Attributes {
	if s.When == nil {
		return nil
	}
	values, _ := json.Marshal(s.When.Values) // a []string always encodes
	return templ.Attributes{"data-when-param": s.When.Param, "data-when-values": string(values)}
}

// shownWhen are the attributes of an equation or a panel shown only while w holds
// (lessons.Equation.When, lessons.Panel.When): the condition as data for
// static/js/params.js, which keeps it in step with the server's values, and hidden
// while it does not hold with the page's values v.
func shownWhen(w *sim.Applies, v sim.Values) templ.Attributes {
	if w == nil {
		return nil
	}
	a := whenAttrs(sim.ParamSpec{When: w})
	if !(sim.ParamSpec{When: w}).AppliesIn(v) {
		a["hidden"] = true
	}
	return a
}

// inapplicable are the attributes of a control whose parameter does not apply with
// the page's values (applies false): disabled, and described by the note that says
// why; none while it applies.
func inapplicable(s sim.ParamSpec, applies bool) templ.Attributes {
	if applies || s.When == nil {
		return nil
	}
	return templ.Attributes{"disabled": true, "aria-describedby": "applies-" + s.Name}
}

// sliderStep is a numeric parameter's slider granularity: its declared Step, else 1 for
// whole numbers and a hundredth of the range for real numbers.
func sliderStep(s sim.ParamSpec) string {
	switch {
	case s.Step > 0:
		return num(s.Step)
	case s.Kind == sim.Int:
		return "1"
	case s.Max > s.Min:
		return num((s.Max - s.Min) / 100)
	}
	return "any"
}

// Limits are the protocol's limits on commands (docs/protocol.md) as a lesson page
// carries them, in the JSON block <script id="limits"> that static/js/limits.js reads.
// They are sim's constants: neither a template nor a script writes one of them again
// (TestLimitsWrittenOnce).
type Limits struct {
	MaxCommandBytes int     `json:"max_command_bytes"`
	MinSpeed        float64 `json:"min_speed"`
	MaxSpeed        float64 `json:"max_speed"`
	MaxTrainSteps   int     `json:"max_train_steps"`
}

// PageLimits is what every lesson page carries.
var PageLimits = Limits{
	MaxCommandBytes: sim.MaxCommandBytes,
	MinSpeed:        sim.MinSpeed,
	MaxSpeed:        sim.MaxSpeed,
	MaxTrainSteps:   sim.MaxTrainSteps,
}

// The speed slider's range in steps per second: whole numbers from speedSliderMin (the
// protocol takes slower speeds, down to sim.MinSpeed) to sim.MaxSpeed.
const speedSliderMin = 1

// trainStepsOffered is the Train box's starting value when the lesson's cap allows it
// (a choice, not a limit).
const trainStepsOffered = 200

// hasAdvanced reports whether any parameter folds into "More parameters".
func hasAdvanced(ss sim.Specs) bool {
	for _, s := range ss {
		if s.Advanced && !sharedParam(s.Name) {
			return true
		}
	}
	return false
}

// joinNames lists array names for a data attribute.
func joinNames(names []string) string { return strings.Join(names, ",") }

// joinLegend is a panel's legend names for its data-legend attribute ("" for none).
// stageRank is the panel's place among the lesson's main panels (Lesson.Stage),
// counting from 1, or "" when it is not one of them.
func stageRank(l *lessons.Lesson, id string) string {
	if i := slices.Index(l.Stage, id); i >= 0 {
		return strconv.Itoa(i + 1)
	}
	return ""
}

func joinLegend(names []string) string {
	plain := make([]string, len(names))
	for i, n := range names {
		plain[i] = lessons.PlainLabel(n)
	}
	return strings.Join(plain, "|")
}

// boolAttr is "true" or "" (absent) for a data attribute.
func boolAttr(b bool) string {
	if b {
		return "true"
	}
	return ""
}

// contractJSON is a panel's contract as the JSON of its data-contract attribute.
func contractJSON(c lessons.Contract) string {
	b, err := json.Marshal(c)
	if err != nil {
		panic(fmt.Sprintf("templates: a panel contract does not encode: %v", err))
	}
	return string(b)
}

// pageContract is what the page's readouts that are not one panel's (the symbol
// readout) may know of the lesson's data: every declared array.
type pageContract struct {
	Arrays []lessons.Array `json:"arrays"`
	Static []string        `json:"static"` // every static key some panel declares
	Loss   string          `json:"loss,omitempty"`
}

func lessonContract(l *lessons.Lesson) pageContract {
	c := pageContract{Arrays: append([]lessons.Array{}, l.Arrays...), Static: []string{}, Loss: l.Loss}
	seen := map[string]bool{}
	for _, p := range l.Panels {
		for _, k := range p.Static {
			if !seen[k] {
				seen[k] = true
				c.Static = append(c.Static, k)
			}
		}
	}
	return c
}

// View is the part of a page's URL that is about how it is shown, not about the
// model: presenter mode (present=1) and the spotlit panel (spot=ID).
type View struct {
	Present bool
	Spot    string
}

// Key is one keyboard shortcut of every lesson page: the keys as the page shows them
// and what they do. static/js/keys.js binds them; a browser test presses each.
type Key struct {
	Keys []string
	What string
}

// Keys are the lesson pages' shortcuts, the same on every page.
var Keys = []Key{
	{[]string{"←", "→"}, "step back / forward"},
	{[]string{"space"}, "play / pause"},
	{[]string{"R"}, "reset to step 0"},
	{[]string{"P"}, "presenter mode on / off"},
	{[]string{"S"}, "spotlight the next panel"},
	{[]string{"F"}, "full screen on / off"},
	{[]string{"J"}, "the class's join code: full size / a strip over the stage"},
	{[]string{"?"}, "this list of keys"},
	{[]string{"Esc"}, "leave the spotlight, close this list"},
}

// panelHref is the export of panel id of lesson slug as format (docs/api.md).
func panelHref(slug, id, format string) string {
	return "/lessons/" + slug + "/panels/" + id + "." + format
}

// exportable reports whether panel p has an export (exports.Exportable).
func exportable(p lessons.Panel) bool { return panelexports.Exportable(p) }

// trainingLoss is the training-loss panel's export (exports.TrainingLoss).
var trainingLoss = panelexports.TrainingLoss

// extrasUnder are lesson l's extra exports offered under its panel id (exports.Extras).
func extrasUnder(l *lessons.Lesson, id string) []panelexports.Extra {
	var out []panelexports.Extra
	for _, e := range panelexports.Extras(l) {
		if e.Under == id {
			out = append(out, e)
		}
	}
	return out
}
