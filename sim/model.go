package sim

// Frame is what a model shows at one moment: named float arrays (drawn as heatmaps,
// bars and curves) and small JSON values.
type Frame struct {
	Arrays []Array
	Meta   map[string]any
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
