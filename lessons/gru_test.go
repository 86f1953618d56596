package lessons

import (
	"reflect"
	"strconv"
	"testing"

	"unroll/sim"
)

func TestGRUTrainFromScratch(t *testing.T) {
	build := func() sim.Trainer {
		v := gruLesson.Params.Defaults()
		v["task"], v["seed"] = "skip", "3"
		m, err := gruLesson.Build(v)
		if err != nil {
			t.Fatal(err)
		}
		return m.(sim.Trainer)
	}
	a, b := build(), build()
	before := a.At(a.Steps())
	var first, last float64
	const steps = 300 // enough for the skip task to be mostly learnt
	for i := range steps {
		fa, err := a.TrainStep()
		if err != nil {
			t.Fatal(err)
		}
		fb, _ := b.TrainStep()
		if !reflect.DeepEqual(fa, fb) {
			t.Fatalf("train step %d: two runs from the same seed differ", i+1)
		}
		loss := fa.Meta["loss"].(float64)
		if i == 0 {
			first = loss
		}
		last = loss
	}
	if last > first/3 {
		t.Errorf("loss after %d steps: got %v want ≤ %v (a third of the first, %v)", steps, last, first/3, first)
	}
	if reflect.DeepEqual(before, a.At(a.Steps())) {
		t.Errorf("frames did not change after training")
	}
	if got := a.Static().Meta["weights"].(string); got != "trained from scratch for "+strconv.Itoa(steps)+" steps (seed 3)" {
		t.Errorf("weights: got %q", got)
	}
	if !reflect.DeepEqual(a.At(3), b.At(3)) || !reflect.DeepEqual(a.Static(), b.Static()) {
		t.Errorf("trained runs from the same seed show different frames")
	}
}
