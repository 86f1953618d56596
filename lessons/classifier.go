package lessons

import (
	"slices"

	"unroll/sim"
)

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
