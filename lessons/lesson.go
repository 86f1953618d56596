// Package lessons is the lecture catalog: one file per lecture section, each a Lesson
// with its prose, equations, panels, parameters, exportable plots and the Builder of
// its model. Catalog lists them in lecture order.
package lessons

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"

	"unroll/sim"
	"unroll/zoo"
)

// Lesson is one lecture section as a live page.
type Lesson struct {
	Slug    string // URL name, e.g. "gru"
	Section string // the lecture's section number, e.g. "4.3"
	Title   string
	Short   string // the site menu's label, e.g. "GRU"
	Summary string // one sentence for the index page

	// Prose is the page's text, paragraph by paragraph, as trusted HTML written in this
	// package; inline maths is TeX between \( and \).
	Prose []string
	// Equations are displayed in order; symbols tied to live values are marked in the
	// TeX with \htmlClass{sym-<id>}{…} and listed in Symbols.
	Equations []Equation
	Panels    []Panel
	// Stage names the lesson's main panels, which presenter mode puts first on the
	// stage, in this order, beside the equations; the other panels follow in page
	// order and wait in the strip when they do not fit. Nil keeps the page's order.
	// The order follows the model's phase: a main panel whose per-step arrays have no
	// value at the current step (BPTT's H in the backward pass) goes after the main
	// panels that do (static/js/stage.js).
	Stage []string
	// Arrays declares every array the panels read (Panel.Arrays names them): what each
	// of its dimensions counts, which way it runs along the time axis, its scale and
	// its label in the lecture's symbols. The page reads arrays only through these.
	Arrays []Array
	// Loss names the array of the training messages that holds the whole loss curve so
	// far ("" when the curve grows by the messages' "loss" meta, one point a step).
	Loss string
	// LossNames are the training loss's symbol in the loss panel's heading, each while
	// its condition holds (the embeddings page trains skip-gram's L or GloVe's J); none:
	// L.
	LossNames []LossName
	Params    sim.Specs
	Plots     []Plot
	// Build makes the lesson's model, whose frames carry the facts' values in their meta;
	// Plot.Series and Plot.Grid read the model it returns. A page's frames come from
	// Model, which labels them with Facts.
	Build sim.Builder
	// Facts labels the keys of the model's meta that the page's facts region lists
	// (lessons/facts.go); Model applies it to every frame.
	Facts factTable
	// Trains reports whether the model is a sim.Trainer (the page shows training controls).
	Trains bool
	// MaxTrained is the most optimisation steps a run may take since its model was
	// built: what the page offers, and what a URL's trained=N may replay. Replaying it
	// takes at most about 30 s on one core, and it is at most sim.MaxTrainSteps; 0 when
	// the lesson does not train.
	MaxTrained int
	// Largest are the parameter values that make a run of it the largest we know of:
	// the longest inputs, the most steps, the widest beam, untrained weights that decode
	// to the longest output. SessionBytes must bound them too, since a URL may ask for
	// them (footprint_test.go measures both); an empty Values when the defaults are the
	// largest.
	Largest sim.Values
	// SessionBytes bounds the heap one run holds beyond what every run shares (the
	// bundled models, datasets and vocabularies, loaded once): untrained, every step's
	// frame computed (stepped to the end) and a snapshot made, at the defaults and at
	// the largest values its parameters take. The server admits sessions by it.
	SessionBytes int
	// PyTorch is the lesson's model as a PyTorch download (lessons/torch.go), nil when
	// the page offers none: it decides both whether the page links the download and
	// whether the server serves it. Build's model is then a PyTorchExporter or a
	// PyTorchProgram (TestHasPyTorchMatchesModels).
	PyTorch *PyTorch
	// Upload: the page takes the student's own model file (the yours page,
	// lessons/yours.go): the template adds the drop box.
	Upload bool
	// TrainedBytes bounds what a run holds more once it has trained, up to MaxTrained
	// steps: its own weights and gradients, the optimiser's state, the loss curve and
	// training caches; 0 when the lesson does not train.
	//
	// footprint_test.go measures both and fails when a measurement exceeds them or
	// they exceed it more than fourfold, so they stay honest.
	TrainedBytes int
}

// LossName is the training loss's symbol, as inline TeX, while When holds.
type LossName struct {
	TeX  string
	When *sim.Applies
}

// Equation is one displayed equation. One that depends on a parameter (the cell a
// deep RNN stacks) names it in Param and gives its TeX for some of that parameter's
// values in Variants, TeX being the form for every other value: the page is rendered
// with TeXFor the URL's values, and static/js/math.js switches the equation when the
// parameter changes. Every variant marks the equation's Symbols.
type Equation struct {
	TeX      string
	Symbols  []Symbol
	Param    string            // the parameter the TeX depends on; "" for none
	Variants map[string]string // the TeX for a value of Param, by value
	When     *sim.Applies      // shown only while this holds (a notation switch); nil: always
}

// TeXFor is the equation's TeX at the parameter values v: its variant for v's value
// of Param, else TeX.
func (e Equation) TeXFor(v sim.Values) string {
	if t, ok := e.Variants[v[e.Param]]; ok && e.Param != "" {
		return t
	}
	return e.TeX
}

// Symbol ties a symbol of an equation to the per-step array it names: hovering it
// highlights that array's panel and shows its values at the current step.
type Symbol struct {
	ID    string // used in \htmlClass{sym-<ID>}{…} and in Panel.Symbol
	Array string // the per-step array, e.g. "R"
}

// PanelKind names the browser module that draws a panel (static/js/panels/<kind>.js).
type PanelKind string

// The panel kinds.
const (
	Heatmap   PanelKind = "heatmap"   // per-step vectors as unit × time, current step marked
	Bars      PanelKind = "bars"      // one per-step vector at the current step
	Line      PanelKind = "line"      // per-step scalars or a static curve against step
	Graph     PanelKind = "graph"     // the unfolded computational graph
	Tokens    PanelKind = "tokens"    // the input/output tokens with the current one marked
	TopK      PanelKind = "topk"      // a per-step softmax's top-k table
	Table     PanelKind = "table"     // tables of cells from the meta key named by the panel ID (mt-data)
	NGrams    PanelKind = "ngrams"    // BLEU's candidate n-grams per order with their reference matches, then the WER alignment
	Scatter   PanelKind = "scatter"   // labelled points in 2-D (the embeddings' PCA map), static or from training progress
	Alignment PanelKind = "alignment" // a matrix with labelled rows and columns (attention weights); a per-step vector adds a row per step
	EncDec    PanelKind = "encdec"    // the encoder, the context c and the decoder run(s) as boxes, the current step marked
	TopKs     PanelKind = "topks"     // several decoder runs' top-k lists side by side at the current step (seq2seq)
	Samples   PanelKind = "samples"   // held-out BLEU against training steps and sample translations, live while training
	Tree      PanelKind = "tree"      // the beam-search hypothesis tree: kept, pruned and finished expansions per step, the best path
	Scene     PanelKind = "scene"     // a grid image of coloured shapes (static meta "scene"); clicks place and remove shapes through the page's image parameter
)

// Axis names what one dimension of an array counts.
type Axis string

// The axes.
const (
	Units      Axis = "units"       // a state's or a gate's units 1..h
	Layers     Axis = "layers"      // a deep RNN's layers, bottom first
	Time       Axis = "time"        // the time steps t of a sequence, as a dimension of a static array
	Vocabulary Axis = "vocabulary"  // the tokens of a vocabulary (a softmax over it)
	Classes    Axis = "classes"     // a classifier's classes
	Positions  Axis = "positions"   // the positions of a sentence (source or target)
	Batch      Axis = "batch"       // the examples of a minibatch
	TrainSteps Axis = "train-steps" // optimisation steps
	Points     Axis = "points"      // labelled points of a scatter (words)
	Coords     Axis = "coords"      // a point's coordinates (x, y)
	Ranks      Axis = "ranks"       // ranks or orders (frequency rank, n-gram order)
	Scalar     Axis = "scalar"      // a one-value vector
	Items      Axis = "items"       // the entries of a list the lesson names (rules, runs, hypotheses)
)

// Dir is the direction in which a per-step array's steps run along the time axis.
type Dir string

// The directions.
const (
	// Forward: step s holds time step t = s (on a model with two passes, during the
	// first one).
	Forward Dir = "forward"
	// Backward: computed from the end, step s holds t = steps + 1 − s (a bidirectional
	// RNN's backward direction, BPTT's backward pass).
	Backward Dir = "backward"
)

// Array declares one array the panels read: one every step (PerStep) or one static
// array of the static frame.
type Array struct {
	Name  string `json:"name"`  // as the model's frames name it
	Label string `json:"label"` // in the lecture's symbols (TeX between \( \) or Unicode): \(R_t\)
	// Axes says what each dimension of one step's value counts ([Units], [Layers,
	// Units]); a per-step array's step axis comes first implicitly.
	Axes    []Axis    `json:"axes"`
	PerStep bool      `json:"per_step,omitempty"` // a value every step (else one static array)
	Dir     Dir       `json:"dir,omitempty"`      // for per-step arrays along the time axis: Forward ("" too) or Backward
	Scale   []float64 `json:"scale,omitempty"`    // its fixed value range [lo, hi]; nil = from the data
	// Labels is the static meta key whose list names the entries of the last dimension
	// (a softmax's vocabulary, a classifier's classes); "" numbers them.
	Labels string `json:"labels,omitempty"`
	// Marker: a line panel draws the per-step value as a marker where it is non-zero
	// (BPTT: where clipping fired) rather than as a curve; a heatmap hatches the time
	// steps where it is non-zero, with a key, instead of filling them (BPTT: the steps
	// truncation cut off), and so does its export.
	Marker bool `json:"marker,omitempty"`
}

// Panel is one drawn view.
type Panel struct {
	ID     string
	Kind   PanelKind
	Title  string   // may hold TeX between \( \)
	Arrays []string // the arrays it draws, by name, each declared in Lesson.Arrays
	// Static and Meta are the keys of the static meta and of a step's meta the panel
	// reads: the page's accessor refuses (and counts) any other.
	Static []string
	Meta   []string
	// Train lists the keys of the training progress messages' meta the panel reads
	// (live while the model trains: the embedding map, sample translations).
	Train  []string
	Scale  []float64 // fixed value range [lo, hi] for colour or axis; nil = the arrays' declared scale, else from the data
	Symbol string    // the equation symbol this panel shows, if any
	// Also lists more equation symbols this panel shows (a table of the whole pipeline):
	// hovering them highlights it too. Its hover still lights Symbol only.
	Also []string
	LogY bool   // log-scale y axis (gradient norms)
	Note string // one line under the panel: what to look for
	// Legend names the arrays in a line or bars panel's legend and tooltips, in the
	// order of Arrays ("" keeps the array's name); nil uses the names. An entry may
	// hold TeX between \( and \): exports typeset it, the page draws its plain form.
	Legend []string
	// When, if set, shows the panel only while the condition holds (a notation switch
	// between two panels of the same numbers); the page hides it otherwise.
	When *sim.Applies
	// Optional: the model's frames may lack some or all of its arrays (a student's own
	// model: an LSTM has no reset gate, one layer no second). The model's static meta
	// then lists the per-step arrays it has under "arrays", and the page shows the
	// panel only while one of its arrays is listed.
	Optional bool
}

// Plot is a slide-ready export of one figure (GET /lessons/{slug}/plots/{name}.png).
type Plot struct {
	Name string // URL name
	// Title, XLabel, YLabel and the series' labels are in the lecture's symbols: text
	// with inline maths in \( … \) (`\(\|\partial L/\partial H_t\|\)`), which the
	// page's KaTeX and the figures' typesetter (figures.CheckText) both read.
	Title  string
	XLabel string
	YLabel string
	LogY   bool
	// Scale, when set, fixes the y axis at [lo, hi]: the page panel's fixed Scale, so
	// the export shows a change at the size the page shows it.
	Scale  []float64
	Points bool // draw each series as points, labelled by Series.Labels, instead of a line
	// Series computes the curves for a built model.
	Series func(m sim.Model) []Series
	// Grid, when set instead of Series, computes a heatmap for a built model.
	Grid func(m sim.Model) Grid
}

// Grid is a heatmap export: Values[r][c] coloured on the fixed scale [Lo, Hi], rows
// labelled top to bottom and columns left to right.
type Grid struct {
	Rows, Cols []string
	Values     [][]float64
	Lo, Hi     float64
}

// Series is one curve of a Plot.
type Series struct {
	Label  string
	X, Y   []float64
	Labels []string // optional, for Points plots: a label per point ("" for none)
}

// Contract is what the page may read for one panel: its arrays' declarations and the
// static and per-step meta keys it declares. The template renders it as JSON on the
// panel, and the page's accessor (static/js/contract.js) reads through it only.
type Contract struct {
	Arrays []Array   `json:"arrays"`
	Static []string  `json:"static"`
	Meta   []string  `json:"meta"`
	Train  []string  `json:"train"`
	Scale  []float64 `json:"scale,omitempty"` // the panel's fixed range, else its first array's
}

// ArrayNamed is the lesson's declaration of the array, and whether there is one.
func (l *Lesson) ArrayNamed(name string) (Array, bool) {
	for _, a := range l.Arrays {
		if a.Name == name {
			return a, true
		}
	}
	return Array{}, false
}

// Contract is p's contract: its arrays' declarations in the order of p.Arrays (an
// undeclared name, which TestLessonContract refuses, gets a bare declaration).
func (l *Lesson) Contract(p Panel) Contract {
	c := Contract{Arrays: []Array{}, Static: append([]string{}, p.Static...), Meta: append([]string{}, p.Meta...), Train: append([]string{}, p.Train...), Scale: p.Scale}
	for _, name := range p.Arrays {
		a, ok := l.ArrayNamed(name)
		if !ok {
			a = Array{Name: name}
		}
		c.Arrays = append(c.Arrays, a)
		if c.Scale == nil && a.Scale != nil {
			c.Scale = a.Scale
		}
	}
	return c
}

// lossCurveLimit is how many losses a live training run keeps: one `train`
// command's worth (sim.MaxTrainSteps).
const lossCurveLimit = sim.MaxTrainSteps

// lossCurve is the losses of a live training run, the newest lossCurveLimit kept.
type lossCurve []float64

// add records one step's loss and returns the curve as the "loss_curve" array that
// every training progress frame carries.
func (c *lossCurve) add(loss float64) sim.Array {
	if len(*c) == lossCurveLimit {
		*c = (*c)[1:]
	}
	*c = append(*c, loss)
	return sim.Vector("loss_curve", slices.Clone(*c))
}

// scratch is what a page that trains from scratch keeps: its training stream and its
// source (nil until the first TrainStep, which also starts a fresh model from the
// seed), the steps taken and the loss curve.
type scratch struct {
	trainSrc  *rand.PCG // trainRng's source, kept so that a fork continues the stream (fork.go)
	trainRng  *rand.Rand
	trained   int
	lossCurve lossCurve
}

// stream is the training stream drawn from seed (zoo.TrainRNG). The first call, the
// page's first TrainStep, calls fresh first, which replaces the bundled weights by
// fresh ones drawn from the seed.
func (s *scratch) stream(seed uint64, fresh func()) *rand.Rand {
	if s.trainRng == nil {
		fresh()
		s.trainSrc = zoo.TrainSource(seed)
		s.trainRng = rand.New(s.trainSrc)
	}
	return s.trainRng
}

// progress is the progress frame of one training step that ended with loss: the loss
// curve with loss added, the loss (rounded), the steps trained so far and the lesson's
// metrics in the meta. A NaN loss is an error, "training diverged", and records
// nothing.
func (s *scratch) progress(loss float64, metrics map[string]any) (sim.Frame, error) {
	if math.IsNaN(loss) {
		return sim.Frame{}, fmt.Errorf("lessons: training diverged at step %d", s.trained+1)
	}
	s.trained++
	meta := map[string]any{"loss": round4(loss), "trained_steps": s.trained}
	maps.Copy(meta, metrics)
	return sim.Frame{Arrays: []sim.Array{s.lossCurve.add(loss)}, Meta: meta}, nil
}

// losses is a model that keeps the loss of each training step it took: what the
// page's training-loss panel draws.
type losses interface{ losses() []float64 }

func (s *scratch) losses() []float64      { return slices.Clone(s.lossCurve) }
func (m *seq2seqModel) losses() []float64 { return slices.Clone(m.lossCurve) }

// Unwrap is the model Build made under m, a model Model made (which labels its
// frames with the lesson's facts); m itself when m is Build's.
func Unwrap(m sim.Model) sim.Model {
	if v, ok := m.(interface{ unwrap() sim.Model }); ok {
		return v.unwrap()
	}
	return m
}

// LossCurve is the training loss L of each step model m (a lesson's, as Build or
// Model made it) has taken since it was built, the newest sim.MaxTrainSteps; nil
// when it has not trained or does not train.
func LossCurve(m sim.Model) []float64 {
	if l, ok := Unwrap(m).(losses); ok {
		return l.losses()
	}
	return nil
}
