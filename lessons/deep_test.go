package lessons

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

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

// TestDeepWeightShapes (lecture 000, eq. 6, with its slip corrected): the table's
// shapes are the live model's parameter shapes: layer 1's input weights W_x· are d×h,
// every higher layer's h×h, the recurrent weights h×h and the biases 1×h in every
// layer, the output's W_hq h×q and b_q 1×q; and the table's counts add up to the
// model's parameters.
func TestDeepWeightShapes(t *testing.T) {
	gates := map[string]int{"rnn": 1, "gru": 3, "lstm": 4} // weight pairs per layer
	for _, kind := range zoo.DeepKinds {
		for L := 1; L <= zoo.DeepMaxLayers; L++ {
			m := buildLesson[*deepModel](t, deepLesson, map[string]string{"cell": kind, "layers": strconv.Itoa(L)})
			tab := m.Static().Meta["shapes"].(table)
			if len(tab.Rows) != L+1 {
				t.Fatalf("%s L=%d: %d rows want %d", kind, L, len(tab.Rows), L+1)
			}
			d, h := m.net.Net.InputSize(), zoo.DeepHidden
			total := 0
			for l, c := range m.net.Net.Layers {
				row := tab.Rows[l]
				in := fmt.Sprintf("%d × %d (d × h)", d, h)
				if l > 0 {
					in = fmt.Sprintf("%d × %d (h × h)", h, h)
				}
				want := []string{in, fmt.Sprintf("%d × %d (h × h)", h, h), fmt.Sprintf("1 × %d", h)}
				for k, w := range want {
					if row.Cells[k].Sub != w {
						t.Errorf("%s L=%d layer %d column %d: %q want %q", kind, L, l+1, k, row.Cells[k].Sub, w)
					}
				}
				// the model's own shapes, parameter by parameter
				count := 0
				for _, p := range c.Params() {
					r, cols := p.Value.Dims()
					count += r * cols
					k := 2
					switch {
					case strings.HasPrefix(p.Name, "W_x"):
						k = 0
						if (l == 0 && r != d) || (l > 0 && r != h) || cols != h {
							t.Errorf("%s layer %d %s is %d×%d", kind, l+1, p.Name, r, cols)
						}
					case strings.HasPrefix(p.Name, "W_h"):
						k = 1
					}
					if !slices.Contains(strings.Split(row.Cells[k].Text, ", "), p.Name) || row.Cells[k].Sub != want[k] {
						t.Errorf("%s L=%d layer %d: %s (%d×%d) not in column %d: %q %q", kind, L, l+1, p.Name, r, cols, k, row.Cells[k].Text, row.Cells[k].Sub)
					}
				}
				if n := len(strings.Split(row.Cells[0].Text, ", ")); n != gates[kind] {
					t.Errorf("%s layer %d: %d input weights want %d", kind, l+1, n, gates[kind])
				}
				if row.Cells[3].Text != strconv.Itoa(count) {
					t.Errorf("%s layer %d: %s numbers want %d", kind, l+1, row.Cells[3].Text, count)
				}
				total += count
			}
			if total != m.net.Net.Params().Count() {
				t.Errorf("%s L=%d: the layers' numbers add to %d, the model has %d", kind, L, total, m.net.Net.Params().Count())
			}
			out := tab.Rows[L]
			q := m.net.Out.W.Value.RawMatrix().Cols
			if out.Cells[0].Text != "W_hq" || out.Cells[0].Sub != fmt.Sprintf("%d × %d (h × q)", h, q) || out.Cells[2].Text != "b_q" || out.Cells[2].Sub != fmt.Sprintf("1 × %d", q) {
				t.Errorf("%s output row %+v", kind, out.Cells)
			}
		}
	}
}

// TestDeepEquationFollowsCell: the displayed step of layer l is the chosen cell's,
// and names exactly the weights the model of that cell has (W_xr … as W_{xr}^{(l)}).
func TestDeepEquationFollowsCell(t *testing.T) {
	eq := deepLesson.Equations[1]
	for _, kind := range zoo.DeepKinds {
		v := lessonValues(deepLesson, map[string]string{"cell": kind})
		tex := eq.TeXFor(v)
		m := buildLesson[*deepModel](t, deepLesson, map[string]string{"cell": kind, "layers": "2"})
		var names []string
		for _, p := range m.net.Net.Layers[1].Params() {
			names = append(names, p.Name)
			sym, sub, _ := strings.Cut(p.Name, "_")
			if !strings.Contains(tex, sym+"_{"+sub+"}^{(l)}") && !strings.Contains(tex, sym+"_"+sub+"^{(l)}") {
				t.Errorf("%s: the equation does not name %s: %s", kind, p.Name, tex)
			}
		}
		for _, gate := range []string{`R_t^{(l)}`, `Z_t^{(l)}`, `I_t^{(l)}`, `F_t^{(l)}`, `O_t^{(l)}`, `C_t^{(l)}`, `\phi`} {
			want := (kind == "gru" && (gate == `R_t^{(l)}` || gate == `Z_t^{(l)}`)) ||
				(kind == "lstm" && (gate == `I_t^{(l)}` || gate == `F_t^{(l)}` || gate == `O_t^{(l)}` || gate == `C_t^{(l)}`))
			if strings.Contains(tex, gate) != want {
				t.Errorf("%s: the equation has %s: %v, want %v (weights %v)", kind, gate, !want, want, names)
			}
		}
	}
}

// TestDeepTrainingCare (seed 004: deep RNNs need care with initialisation, learning
// rate and clipping): the page states the recipe the models use: the layers' fresh
// weights lie in U(−1/√h, 1/√h) and fill it; Adam at η; clipping at θ; and what the
// prose says of it: from scratch at seed 1, every cell and depth keeps ‖g‖ below 1
// over its first 200 steps, so no step is clipped, and the facts count them.
func TestDeepTrainingCare(t *testing.T) {
	a := 1 / math.Sqrt(float64(zoo.DeepHidden))
	if zoo.DeepInitBound() != a {
		t.Fatalf("init bound %v want 1/√h = %v", zoo.DeepInitBound(), a)
	}
	prose := strings.Join(deepLesson.Prose, " ")
	for _, want := range []string{`U(-1/\sqrt{h}, 1/\sqrt{h})`, fmt.Sprintf(`\(\eta = %g\)`, zoo.DeepLR), fmt.Sprintf(`\(\theta = %g\)`, float64(zoo.DeepClip)), "first 200 steps"} {
		if !strings.Contains(prose, want) {
			t.Errorf("the prose does not say %s", want)
		}
	}
	for _, kind := range zoo.DeepKinds {
		for L := 1; L <= zoo.DeepMaxLayers; L++ {
			fresh := zoo.NewMarketModel(kind, L, 1)
			top := 0.0
			for _, p := range fresh.Net.Params() {
				for _, w := range p.Value.RawMatrix().Data {
					top = max(top, math.Abs(w))
				}
			}
			if top > a || top < 0.9*a {
				t.Errorf("%s L=%d: fresh weights reach %v, want within and near a = %v", kind, L, top, a)
			}
			m := buildLesson[*deepModel](t, deepLesson, map[string]string{"cell": kind, "layers": strconv.Itoa(L), "seed": "1"})
			for range 200 {
				if _, err := m.TrainStep(); err != nil {
					t.Fatal(err)
				}
			}
			if !(m.maxNorm > 0 && m.maxNorm < 1) || m.clippedSteps != 0 {
				t.Errorf("%s L=%d: largest ‖g‖ %v, %d steps clipped; the prose says below 1 and none", kind, L, m.maxNorm, m.clippedSteps)
			}
			f := m.Static().Meta
			if f["clipped_steps"] != "0 of 200" || !strings.Contains(f["gradient_norm"].(string), fmt.Sprintf("%.3g at most", m.maxNorm)) {
				t.Errorf("%s L=%d: facts %q, %q", kind, L, f["clipped_steps"], f["gradient_norm"])
			}
		}
	}
}

// TestDeepClippingFires (seed 004: deep RNNs need clipping): with the page's θ
// lowered below the gradient norms of training from scratch to the value the prose
// suggests, at the page's default depth, clipping fires, and
// the page's count of clipped steps is the count recomputed from a second model
// trained alongside on the same stream: the steps whose gradient norm before
// clipping exceeds θ, after each of which the gradient left has norm exactly θ; the
// facts say the count and the θ, and a clipped run trains other weights than θ = 5.
func TestDeepClippingFires(t *testing.T) {
	const steps, theta = 40, 0.2
	if want := fmt.Sprintf("(%g, say)", theta); !strings.Contains(strings.Join(deepLesson.Prose, " "), want) {
		t.Errorf("the prose does not suggest θ = %g", theta)
	}
	for _, kind := range zoo.DeepKinds {
		t.Run(kind, func(t *testing.T) {
			m := buildLesson[*deepModel](t, deepLesson, map[string]string{"cell": kind, "seed": "1", "clip": fmt.Sprint(theta)}) // the default L
			L := m.net.Layers()
			ref := zoo.NewMarketModel(kind, L, 1)
			ref.Clip = theta
			free := zoo.NewMarketModel(kind, L, 1) // the default θ = 5, which never fires here
			rng, rngFree := rand.New(zoo.TrainSource(1)), rand.New(zoo.TrainSource(1))
			want := 0
			for k := range steps {
				if _, err := m.TrainStep(); err != nil {
					t.Fatal(err)
				}
				ref.TrainStep(rng)
				free.TrainStep(rngFree)
				left := ref.Params().GradNorm()
				if ref.GradNorm > theta {
					want++
					if math.Abs(left-theta) > 1e-12 {
						t.Errorf("step %d: ‖g‖ %v > θ but the gradient left has norm %v, want θ", k+1, ref.GradNorm, left)
					}
				} else if math.Abs(left-ref.GradNorm) > 1e-12 {
					t.Errorf("step %d: ‖g‖ %v ≤ θ but the gradient left has norm %v", k+1, ref.GradNorm, left)
				}
				if m.net.GradNorm != ref.GradNorm {
					t.Fatalf("step %d: the page's ‖g‖ %v, the recomputed %v", k+1, m.net.GradNorm, ref.GradNorm)
				}
			}
			if want == 0 || want == steps {
				t.Fatalf("θ = %v clipped %d of %d steps: want some but not all, so the count means something", theta, want, steps)
			}
			if m.clippedSteps != want {
				t.Errorf("the page counts %d clipped steps, recomputed %d", m.clippedSteps, want)
			}
			f := m.Static().Meta
			if got := f["clipped_steps"]; got != fmt.Sprintf("%d of %d", want, steps) {
				t.Errorf("facts: steps clipped %q, want \"%d of %d\"", got, want, steps)
			}
			if !strings.Contains(f["gradient_norm"].(string), fmt.Sprintf("(θ = %g)", theta)) || !strings.Contains(f["clipping"].(string), fmt.Sprintf("θ = %g when you train from scratch", theta)) {
				t.Errorf("facts: %q, %q, want θ = %g", f["gradient_norm"], f["clipping"], theta)
			}
			if mat.Equal(m.net.Params()[0].Value, free.Params()[0].Value) {
				t.Errorf("the clipped run ends with the weights of the unclipped one")
			}
			t.Logf("%s L=%d: %d of %d steps clipped at θ = %g", kind, L, want, steps, theta)
		})
	}
}
