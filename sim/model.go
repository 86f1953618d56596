package sim

// Frame is what a model shows at one moment: named float arrays (drawn as heatmaps,
// bars and curves) and small JSON values.
type Frame struct {
	Arrays []Array
	// Meta is the small JSON values the lesson's panels read, by the keys they declare
	// (lessons.Panel's Static and Meta). The page never shows a key as a label.
	Meta map[string]any
	// Facts are what the page's facts region lists, in order: each labelled in the
	// lecture's words and symbols by the lesson (the static frame's under "about this
	// model", a step's under the step).
	Facts []Fact
}

// Fact is one labelled value of the facts region: "accuracy 0.8125", "unknown words in
// English 3.2 %". Value is a number, a string or a bool. Measured marks a number that is
// a measurement (an accuracy, a norm, a loss), which the page writes with 4 significant
// digits even when it is whole (an accuracy of 1 reads 1.000); other whole numbers are
// counts and sizes, written whole.
type Fact struct {
	Label    string `json:"label"`
	Value    any    `json:"value"`
	Measured bool   `json:"measured,omitempty"`
}

// Pass is one stretch of a model's steps that means one thing: the forward pass over
// t = 1..T, the backward pass from t = T down to 1, the encoder, a pipeline's stages. A
// model's passes cover its steps in order (Timeline); the page's transport says the
// pass and its own index ("backward pass, t = 15 / 30") rather than the scrubber's step.
type Pass struct {
	Name  string `json:"name"`            // in the lecture's words: "forward pass", "encoder"; "" when the model has one pass
	Steps int    `json:"steps"`           // how many of the model's steps it spans
	Index string `json:"index,omitempty"` // the symbol its steps count ("t", "t'"); "" for named stages
	// First and Last are the index at the pass's first and last step: 1 and T for a
	// forward pass, T and 1 for a backward one. Both 0 means 1..Steps.
	First int `json:"first,omitempty"`
	Last  int `json:"last,omitempty"`
	// Stages name each step of a pass of named stages ("tokenize", "count"), in order.
	Stages []string `json:"stages,omitempty"`
}

// Timeline is a Model that says what its steps are: its passes, in order, whose Steps
// add up to the model's Steps. A Model without it has one pass, t = 1..Steps.
type Timeline interface {
	Passes() []Pass
}

// PassesOf is m's passes: its Timeline's, or one pass t = 1..Steps.
func PassesOf(m Model) []Pass {
	if tl, ok := m.(Timeline); ok {
		return tl.Passes()
	}
	return []Pass{{Steps: m.Steps(), Index: "t"}}
}

// Array is one named row-major array; Shape is [n] for a vector, [rows, cols] for a
// matrix. The values travel to the browser as float32.
type Array struct {
	Name  string
	Shape []int
	Data  []float64
}

// Vector returns a 1-D array.
func Vector(name string, v []float64) Array { return Array{Name: name, Shape: []int{len(v)}, Data: v} }

// Matrix returns a rows×cols array of row-major data.
func Matrix(name string, rows, cols int, data []float64) Array {
	return Array{Name: name, Shape: []int{rows, cols}, Data: data}
}

// Model is one lesson's simulation for one set of parameter values. Build functions
// make it deterministically from the values (seed included).
type Model interface {
	// Steps is how many time steps the scrubber spans; steps are numbered 1..Steps,
	// and step 0 is "before the first step".
	Steps() int
	// Static is what does not change with the step: input tokens, labels, scales,
	// arrays such as weights. It is sent in every snapshot.
	Static() Frame
	// At is the frame of step t, 1 ≤ t ≤ Steps. Runs cache frames, so At may compute.
	At(t int) Frame
}

// Trainer is a Model that can also learn: TrainStep runs one optimisation step and
// reports progress (loss and lesson metrics in Meta, optionally a loss-curve array).
// After training, the Run rebuilds its frames from the trained model.
type Trainer interface {
	Model
	TrainStep() (Frame, error)
}

// Builder makes a lesson's Model from validated parameter values.
type Builder func(v Values) (Model, error)
