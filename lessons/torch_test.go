package lessons

import (
	"testing"

	"unroll/zoo"
)

// TestHasPyTorchMatchesModels: the lessons the page offers a PyTorch download on are
// exactly those whose model (built with the defaults) is a PyTorchExporter, and each
// one's inputs and H_t agree in length with its steps.
func TestHasPyTorchMatchesModels(t *testing.T) {
	for _, l := range Catalog() {
		v := l.Params.Defaults()
		if l.Slug == "gru" {
			v["variant"] = zoo.VariantResetAfter
		}
		m, err := l.Build(v)
		if err != nil {
			t.Fatal(l.Slug, err)
		}
		pe, ok := Unwrap(m).(PyTorchExporter)
		if ok != HasPyTorch(l.Slug) {
			t.Errorf("%s: model is a PyTorchExporter: %v; HasPyTorch: %v", l.Slug, ok, HasPyTorch(l.Slug))
		}
		if !ok {
			continue
		}
		p := pe.PyTorch()
		stack := p.Stack()
		top := stack[len(stack)-1]
		width := len(top) * top[0].HiddenSize() // the top layer's [→H_t, ←H_t]
		if p.Steps() != m.Steps() || (p.X == nil) == (p.Inputs == nil) || len(p.H) != m.Steps() || len(p.H[0]) != width {
			t.Errorf("%s: %d inputs, %d rows of numbers, %d H_t of %d (want %d), for %d steps", l.Slug, len(p.Inputs), len(p.X), len(p.H), len(p.H[0]), width, m.Steps())
		}
	}
}
