package lessons

import (
	"testing"

	"unroll/sim"
)

// goldenTrainSteps is how many training steps the trained golden files record: enough to
// move every weight, few enough to keep the files small.
const goldenTrainSteps = 2

// TestFramesGolden freezes what every lesson's page shows at its defaults
// (testdata/<slug>-frames.golden) and, for a lesson that trains, what it shows after
// goldenTrainSteps training steps: the progress frames, then the page's frames
// (testdata/<slug>-after-training-frames.golden). A refactoring must leave them byte-identical
// (or within the last printed digit where goldenByteExact says the bytes depend on the
// machine). Refresh with go test ./lessons -run Golden -update.
func TestFramesGolden(t *testing.T) {
	for _, l := range Catalog() {
		t.Run(l.Slug, func(t *testing.T) {
			checkFramesGolden(t, pageModel(t, l, nil), l.Slug)
			m := pageModel(t, l, nil)
			tr, ok := m.(sim.Trainer)
			if !ok {
				return
			}
			var progress []sim.Frame
			for range goldenTrainSteps {
				f, err := tr.TrainStep()
				if err != nil {
					t.Fatalf("train step: %v", err)
				}
				progress = append(progress, f)
			}
			checkFramesGolden(t, trainedView{tr, progress}, l.Slug+"-after-training")
		})
	}
}

// trainedView is a trained model whose golden file starts with its training progress:
// Static is unchanged, and steps 1..len(progress) are the progress frames, followed by
// the model's own steps.
type trainedView struct {
	sim.Model
	progress []sim.Frame
}

func (v trainedView) Steps() int { return len(v.progress) + v.Model.Steps() }

func (v trainedView) At(t int) sim.Frame {
	if t <= len(v.progress) {
		return v.progress[t-1]
	}
	return v.Model.At(t - len(v.progress))
}
