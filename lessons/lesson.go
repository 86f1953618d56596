// Package lessons is the lecture catalog: one file per lecture section, each a Lesson
// with its prose, equations, panels, parameters, exportable plots and the Builder of
// its model. Catalog lists them in lecture order.
package lessons

import "unroll/sim"

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
	Params    sim.Specs
	Plots     []Plot
	Build     sim.Builder
	// Trains reports whether the model is a sim.Trainer (the page shows training controls).
	Trains bool
	// MaxTrained is the most optimisation steps a run may take since its model was
	// built: what the page offers, and what a URL's trained=N may replay. Replaying it
	// takes at most about 30 s on one core, and it is at most sim.MaxTrainSteps; 0 when
	// the lesson does not train.
	MaxTrained int
	// SessionBytes bounds the heap one run holds beyond what every run shares (the
	// bundled models, datasets and vocabularies, loaded once): untrained, every step's
	// frame computed (stepped to the end) and a snapshot made, at the defaults and at
	// the largest values its parameters take. The server admits sessions by it.
	SessionBytes int
	// TrainedBytes bounds what a run holds more once it has trained, up to MaxTrained
	// steps: its own weights and gradients, the optimiser's state, the loss curve and
	// training caches; 0 when the lesson does not train.
	//
	// footprint_test.go measures both and fails when a measurement exceeds them or
	// they exceed it more than fourfold, so they stay honest.
	TrainedBytes int
}

// Equation is one displayed equation.
type Equation struct {
	TeX     string
	Symbols []Symbol
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
)

// Panel is one drawn view.
type Panel struct {
	ID     string
	Kind   PanelKind
	Title  string    // may hold TeX between \( \)
	Arrays []string  // the arrays it draws, by name
	Scale  []float64 // fixed value range [lo, hi] for colour or axis; nil = from the data
	Symbol string    // the equation symbol this panel shows, if any
	// Also lists more equation symbols this panel shows (a table of the whole pipeline):
	// hovering them highlights it too. Its hover still lights Symbol only.
	Also []string
	LogY bool   // log-scale y axis (gradient norms)
	Note string // one line under the panel: what to look for
	// Legend names the arrays in a line or bars panel's legend and tooltips, in the
	// order of Arrays ("" keeps the array's name); nil uses the names.
	Legend []string
}

// Plot is a slide-ready export of one figure (GET /lessons/{slug}/plots/{name}.png).
type Plot struct {
	Name   string // URL name
	Title  string // in the lecture's symbols (plain Unicode: ‖∂L/∂H_t‖)
	XLabel string
	YLabel string
	LogY   bool
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
