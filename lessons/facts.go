package lessons

import (
	"maps"

	"unroll/sim"
)

// fact labels one meta key that a lesson's model computes as a fact of the page's
// facts region (sim.Fact): its label in the lecture's words and symbols, its symbols in
// TeX between \( and \), which the fact carries in Unicode (PlainLabel): \(\hat{y}_t\)
// is ŷₜ. Never a code name (TestLabelsReadAsSymbols).
type fact struct {
	key, label string
	// measured: a measurement (an accuracy, a norm, a probability), written with 4
	// significant digits even when whole.
	measured bool
	// keep: a panel reads the key too (Panel.Meta, Panel.Static), so it stays in the meta.
	keep bool
}

// factTable is a lesson's facts: the static frame's and a step's, each in the order
// the page lists them.
type factTable struct {
	static, step []fact
}

// decodedFacts are a translator's step facts: the token written at t′ and whether it is
// the reference's (panels read both); a new slice each call, for the lesson's own to
// follow.
func decodedFacts() []fact {
	return []fact{
		{key: "pred", label: `prediction \(\hat{y}_{t'}\)`, keep: true},
		{key: "correct", label: "right", keep: true},
	}
}

// staticFacts and stepFacts (applied by Lesson.Model) move the table's keys that the frame's meta has into its
// Facts, in the table's order, leaving a meta of the frame's own (the model's map is
// not changed): what a panel reads stays in the meta, what the page shows is a fact.
func (ft factTable) staticFacts(f sim.Frame) sim.Frame { return moveFacts(f, ft.static) }
func (ft factTable) stepFacts(f sim.Frame) sim.Frame   { return moveFacts(f, ft.step) }

func moveFacts(f sim.Frame, table []fact) sim.Frame {
	if len(f.Meta) == 0 {
		return f
	}
	meta := maps.Clone(f.Meta)
	facts := append([]sim.Fact(nil), f.Facts...)
	for _, k := range table {
		v, ok := meta[k.key]
		if !ok {
			continue
		}
		facts = append(facts, sim.Fact{Label: PlainLabel(k.label), Value: plainValue(v), Measured: k.measured})
		if !k.keep {
			delete(meta, k.key)
		}
	}
	f.Meta, f.Facts = meta, facts
	return f
}

// plainValue is v as a fact's value: numbers as float64 or int, strings and bools as
// they are.
func plainValue(v any) any {
	switch x := v.(type) {
	case int64:
		return int(x)
	case float32:
		return float64(x)
	}
	return v
}

// Model builds the lesson's model for a page: Build's model seen through Facts, so its
// static frame and every step's frame list their facts. It is a sim.Builder
// (sim.NewRun(l.Params, l.Model, v)); the model it returns is a sim.Trainer or a
// sim.Timeline exactly when Build's is.
func (l *Lesson) Model(v sim.Values) (sim.Model, error) {
	m, err := l.Build(v)
	if err != nil {
		return nil, err
	}
	return labelled(m, l.Facts), nil
}

// labelled is m seen through the fact table ft, with m's TrainStep and Passes when it
// has them and no others, and Fork (which fails when m has none).
func labelled(m sim.Model, ft factTable) sim.Model {
	view := &factView{inner: m, facts: ft}
	_, trains := m.(sim.Trainer)
	_, passes := m.(sim.Timeline)
	switch {
	case trains && passes:
		return &factTrainerTimeline{view}
	case trains:
		return &factTrainer{view}
	case passes:
		return &factTimeline{view}
	}
	return view
}

// factView labels a model's frames with its lesson's facts.
type factView struct {
	inner sim.Model
	facts factTable
}

func (v *factView) Steps() int         { return v.inner.Steps() }
func (v *factView) Static() sim.Frame  { return v.facts.staticFacts(v.inner.Static()) }
func (v *factView) At(t int) sim.Frame { return v.facts.stepFacts(v.inner.At(t)) }
func (v *factView) unwrap() sim.Model  { return v.inner }

// Fork forks the inner model (sim.Forker) and labels the copy alike (fork.go).
func (v *factView) Fork() (sim.Model, error) { return forkLabelled(v.inner, v.facts) }

// trainStep and passes are the inner model's, for the views that have them.
func (v *factView) trainStep() (sim.Frame, error) { return v.inner.(sim.Trainer).TrainStep() }
func (v *factView) passes() []sim.Pass            { return v.inner.(sim.Timeline).Passes() }

type factTrainer struct{ *factView }

func (v *factTrainer) TrainStep() (sim.Frame, error) { return v.trainStep() }

type factTimeline struct{ *factView }

func (v *factTimeline) Passes() []sim.Pass { return v.passes() }

type factTrainerTimeline struct{ *factView }

func (v *factTrainerTimeline) TrainStep() (sim.Frame, error) { return v.trainStep() }
func (v *factTrainerTimeline) Passes() []sim.Pass            { return v.passes() }
