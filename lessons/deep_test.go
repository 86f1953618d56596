package lessons

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/diff/fd"

	"unroll/data"
)

// TestMarketGradient checks lossGrad against central differences for every cell
// kind in a two-layer stack (the output layer, the loss and Deep's BPTT together).
func TestMarketGradient(t *testing.T) {
	const tol = 1e-6 // relative
	for _, kind := range DeepKinds {
		m := NewMarketModel(kind, 2, 5)
		rng := rand.New(rand.NewPCG(1, 1))
		batch := []data.MarketSeries{data.NewMarketSeries(rng, 7), data.NewMarketSeries(rng, 7)}
		ps := m.Params()
		ps.ZeroGrad()
		m.lossGrad(batch, 7)
		grads := make([][]float64, len(ps)) // before the loss evaluations below add to Grad
		for k, p := range ps {
			grads[k] = slices.Clone(p.Grad.RawMatrix().Data)
		}
		for k, p := range ps {
			raw := p.Value.RawMatrix().Data
			grad := grads[k]
			for i := 0; i < len(raw); i += 1 + len(raw)/5 {
				orig := raw[i]
				loss := func(x float64) float64 {
					raw[i] = x
					defer func() { raw[i] = orig }()
					l, _ := m.lossGrad(batch, 7) // also adds to Grad, which grads copied before
					return l
				}
				want := fd.Derivative(loss, orig, &fd.Settings{Formula: fd.Central, Step: 1e-5})
				if got := grad[i]; math.Abs(got-want) > tol*math.Max(1e-3, math.Abs(want)) {
					t.Errorf("%s %s[%d]: got %v want %v", kind, p.Name, i, got, want)
				}
			}
		}
	}
}

// TestDeepCheckpoints: every shipped stack reproduces the scores recorded in it by
// cmd/train and tells the regime apart; in every stack of two or three layers the
// top layer follows the fast component less, and the regime relatively more, than
// layer 1 (measured values in docs/lessons.md).
func TestDeepCheckpoints(t *testing.T) {
	for _, kind := range DeepKinds {
		for L := 1; L <= DeepMaxLayers; L++ {
			name := DeepCheckpointFile(kind, L)
			m, meta, err := LoadMarketModel(kind, L)
			if err != nil {
				t.Fatal(err)
			}
			sc := m.Scores(DeepEvalSet())
			got := map[string]float64{"regime_accuracy": sc.RegimeAccuracy, "next_mse": sc.NextMSE, "best_mse": sc.BestMSE}
			for l := range L {
				got[fmt.Sprintf("slow_corr_l%d", l+1)] = sc.SlowCorr[l]
				got[fmt.Sprintf("fast_corr_l%d", l+1)] = sc.FastCorr[l]
				got[fmt.Sprintf("autocorr_l%d", l+1)] = sc.Autocorr[l]
			}
			for k, g := range got {
				tol := recordedSmooth // MSEs and correlations
				if k == "regime_accuracy" {
					tol = recordedCount
				}
				checkRecorded(t, name+" "+k, g, metaFloat(meta, k), tol)
			}
			if sc.RegimeAccuracy < 0.9 {
				t.Errorf("%s: held-out regime accuracy %v, want ≥ 0.9", name, sc.RegimeAccuracy)
			}
			if sc.NextMSE > sc.BestMSE*1.4 {
				t.Errorf("%s: next-day MSE %v, want ≤ 1.4 × the best possible %v", name, sc.NextMSE, sc.BestMSE)
			}
			if L == 1 {
				continue
			}
			top := L - 1
			if sc.FastCorr[top] >= sc.FastCorr[0] {
				t.Errorf("%s: |corr| with f_t: top layer %v, layer 1 %v; want the top lower", name, sc.FastCorr[top], sc.FastCorr[0])
			}
			if sc.SlowCorr[top]-sc.FastCorr[top] <= sc.SlowCorr[0]-sc.FastCorr[0] {
				t.Errorf("%s: slow − fast |corr|: top layer %v, layer 1 %v; want the top higher", name,
					sc.SlowCorr[top]-sc.FastCorr[top], sc.SlowCorr[0]-sc.FastCorr[0])
			}
		}
	}
}

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
		for _, a := range m.frameAt(s).Arrays {
			arrays[a.Name], shapes[a.Name] = a.Data, a.Shape
		}
		if !slices.Equal(shapes["H"], []int{L, DeepHidden}) {
			t.Fatalf("step %d: H has shape %v want [%d %d]", s, shapes["H"], L, DeepHidden)
		}
		for l := range L {
			if !slices.Equal(arrays["H"][l*DeepHidden:(l+1)*DeepHidden], r.States[s-1][l]) {
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
