package lessons

import (
	"maps"

	"unroll/sim"
)

// fact labels one meta key that a lesson's model computes as a fact of the page's
// facts region (sim.Fact): its label in the lecture's words and symbols.
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

// staticFacts and stepFacts move the table's keys that the frame's meta has into its
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
		facts = append(facts, sim.Fact{Label: k.label, Value: plainValue(v), Measured: k.measured})
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
