package lessons

import (
	"maps"
	"slices"
	"testing"

	"unroll/zoo"
)

// TestDeepFrames: step t carries every layer's H_t^{(l)} as an [L, h] array, the
// forecast x̂_t of x_t made on day t−1 (on day 1 the forecast from H_0 = 0, which is
// b_q's first entry) and x̂_{t+1}, made on day t. Every step carries the same arrays:
// the page asks for a snapshot when a step lacks one.
func TestDeepFrames(t *testing.T) {
	v := deepLesson.Params.Defaults()
	sm, err := deepLesson.Build(v)
	if err != nil {
		t.Fatal(err)
	}
	m := sm.(*deepModel)
	r := m.states()
	L := v.Int("layers")
	for s := 1; s <= m.Steps(); s++ {
		arrays := map[string][]float64{}
		shapes := map[string][]int{}
		for _, a := range m.At(s).Arrays {
			arrays[a.Name], shapes[a.Name] = a.Data, a.Shape
		}
		if !slices.Equal(shapes["H"], []int{L, zoo.DeepHidden}) {
			t.Fatalf("step %d: H has shape %v want [%d %d]", s, shapes["H"], L, zoo.DeepHidden)
		}
		for l := range L {
			if !slices.Equal(arrays["H"][l*zoo.DeepHidden:(l+1)*zoo.DeepHidden], r.States[s-1][l]) {
				t.Fatalf("step %d: row %d of H is not H_t^(%d)", s, l, l+1)
			}
		}
		want := m.net.Out.B.Value.At(0, 0)
		if s > 1 {
			want = r.Next[s-2]
		}
		if xh := arrays["x_hat"]; !slices.Equal(xh, []float64{want}) {
			t.Fatalf("step %d: x_hat = %v, want [%v], the forecast made on day %d", s, xh, want, s-1)
		}
		if xn := arrays["x_hat_next"]; !slices.Equal(xn, []float64{r.Next[s-1]}) {
			t.Fatalf("step %d: x_hat_next = %v, want [%v], the forecast made today", s, xn, r.Next[s-1])
		}
		if names := slices.Sorted(maps.Keys(arrays)); !slices.Equal(names, []string{"H", "p_bull", "x", "x_hat", "x_hat_next"}) {
			t.Fatalf("step %d: arrays %v", s, names)
		}
	}
}

// TestDeepSymbolsLinkPanels: every symbol of the equations (x_t, H_t, x̂_{t+1},
// P(bull)) is the symbol of a panel that draws its array's values, so hovering it
// lights that panel up; x̂_{t+1}'s readout at step t is the forecast made on day t.
func TestDeepSymbolsLinkPanels(t *testing.T) {
	drawn := map[string][]string{} // symbol → the arrays its panels draw
	for _, p := range deepLesson.Panels {
		if p.Symbol != "" {
			drawn[p.Symbol] = append(drawn[p.Symbol], p.Arrays...)
		}
	}
	related := map[string]string{"x_hat_next": "x_hat"} // drawn one day later, against x_t
	for _, eq := range deepLesson.Equations {
		for _, sym := range eq.Symbols {
			arr := sym.Array
			if r, ok := related[arr]; ok {
				arr = r
			}
			if !slices.Contains(drawn[sym.ID], arr) {
				t.Errorf("symbol %s (array %s): no panel with this symbol draws %s (panels' arrays %v)", sym.ID, sym.Array, arr, drawn[sym.ID])
			}
		}
	}
	for _, id := range []string{"x", "x_hat"} {
		if _, ok := drawn[id]; !ok {
			t.Errorf("no panel for symbol %s", id)
		}
	}
}

func TestDeepTrainFromScratch(t *testing.T) {
	v := deepLesson.Params.Defaults()
	v["layers"], v["cell"] = "2", "gru"
	sm, err := deepLesson.Build(v)
	if err != nil {
		t.Fatal(err)
	}
	m := sm.(*deepModel)
	var first, last float64
	const steps = 150
	for i := range steps {
		f, err := m.TrainStep()
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = f.Meta["loss"].(float64)
		}
		last = f.Meta["loss"].(float64)
	}
	if last > first*0.75 {
		t.Errorf("loss after %d steps: got %v want < 0.75 × the first %v", steps, last, first)
	}
	if _, fast, _ := m.layerScores(); len(fast) != 2 {
		t.Errorf("layer scores after training: got %d layers want 2", len(fast))
	}
}
