package sim

import (
	"errors"
	"maps"
	"slices"
)

// Forker is a Model that can be copied, so that a student can take a class's run,
// trained weights included, and change it on their own ("Explore on my own"): Fork
// returns a deep copy that shares nothing mutable with the original — weights and
// gradients, the optimiser's state (Adam's moments and step counts), the training
// random stream at its exact position, the loss curve, and any cache its frames are
// computed from. What every run shares read-only (a bundled checkpoint the model has
// not started training, a dataset, a vocabulary) may stay shared.
//
// After a fork, n more TrainSteps on the copy give the same frames, byte for byte, as
// n more TrainSteps on the original would, and neither changes the other. A model
// that wraps another forks by forking it, and reports an error when it cannot.
type Forker interface {
	Fork() (Model, error)
}

// ErrNoFork is Run.Fork's error for a model that is not a Forker.
var ErrNoFork = errors.New("sim: this lesson's model cannot be copied")

// Fork returns a new Run at r's state with a copy of its model (Forker): the same
// values, step, speed, trained count and train limit, paused, with no train command
// under way. Its messages are numbered from 1 again and it has no session name: it
// is a new page's run, which its owner names (SetSession). The copy's frames are
// computed from the copied model when first needed, by the copy's owner, so Fork
// costs r's owner the model's copy only.
//
// Fork reads r only; like every method it must be called by r's owner.
func (r *Run) Fork() (*Run, error) {
	f, ok := r.model.(Forker)
	if !ok {
		return nil, ErrNoFork
	}
	m, err := f.Fork()
	if err != nil {
		return nil, err
	}
	if m == nil || m.Steps() != r.Steps() {
		return nil, errors.New("sim: the model's copy has other steps than the model")
	}
	return &Run{
		specs: r.specs, build: r.build, values: maps.Clone(r.values),
		model: m, passes: slices.Clone(r.passes),
		frames: make([]*Frame, len(r.frames)),
		// dirty: the static frame is read from the copy on first use (refresh).
		train: trainState{dirty: true},
		step:  r.step, speed: r.speed, trained: r.trained, maxTrained: r.maxTrained,
	}, nil
}
