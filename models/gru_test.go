package models

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// torchCase is one run of torch.nn.GRU or torch.nn.LSTM (PyTorch's layout: gate
// blocks stacked by rows, weights out×in), written out by
// bench/pytorch/cell_golden.py.
type torchCase struct {
	weightIH, weightHH [][]float64
	biasIH, biasHH     []float64
	x                  [][][]float64 // T×B×d
	h0, c0             [][]float64   // B×h
	dH, out            [][][]float64 // T×B×h
	gradWeightIH       [][]float64
	gradWeightHH       [][]float64
	gradBiasIH         []float64
	gradBiasHH         []float64
	gradX              [][][]float64
	gradH0, gradC0     [][]float64
}

// torchRows is the matrix with the given rows.
func torchRows(rows [][]float64) *mat.Dense {
	m := mat.NewDense(len(rows), len(rows[0]), nil)
	for i, r := range rows {
		m.SetRow(i, r)
	}
	return m
}

// torchBlock is gate block k of a PyTorch weight (rows k·h..(k+1)·h), transposed
// into the lectures' in×out layout.
func torchBlock(w [][]float64, k, h int) *mat.Dense {
	return mat.DenseCopyOf(torchRows(w[k*h : (k+1)*h]).T())
}

// torchBias is block k of a PyTorch bias as a 1×h row, summed over the given biases.
func torchBias(k, h int, biases ...[]float64) *mat.Dense {
	b := mat.NewDense(1, h, nil)
	for _, v := range biases {
		for j := range h {
			b.Set(0, j, b.At(0, j)+v[k*h+j])
		}
	}
	return b
}

// torchSequence is x or dH as T matrices B×n.
func torchSequence(v [][][]float64) []*mat.Dense {
	out := make([]*mat.Dense, len(v))
	for t, m := range v {
		out[t] = torchRows(m)
	}
	return out
}

// TestGRUResetAfterMatchesTorch: with PyTorch's weights mapped as the GRU doc
// comment says, the reset-after GRU reproduces torch.nn.GRU's outputs and every
// gradient.
func TestGRUResetAfterMatchesTorch(t *testing.T) {
	const tol = 1e-12
	tc := torchGRU
	h := len(tc.weightHH[0])
	c := NewGRUResetAfter(len(tc.weightIH[0]), h, rand.New(rand.NewPCG(1, 1)))
	for k, ws := range [][2]*Param{{c.Wxr, c.Whr}, {c.Wxz, c.Whz}, {c.Wxh, c.Whh}} {
		ws[0].Value.Copy(torchBlock(tc.weightIH, k, h))
		ws[1].Value.Copy(torchBlock(tc.weightHH, k, h))
	}
	c.Br.Value.Copy(torchBias(0, h, tc.biasIH, tc.biasHH))
	c.Bz.Value.Copy(torchBias(1, h, tc.biasIH, tc.biasHH))
	c.Bh.Value.Copy(torchBias(2, h, tc.biasIH))
	c.Bhn.Value.Copy(torchBias(2, h, tc.biasHH))
	if !c.ResetAfter() || NewGRU(1, 1, rand.New(rand.NewPCG(1, 1))).ResetAfter() {
		t.Error("ResetAfter: got the wrong form")
	}

	tr, err := Forward(c, torchSequence(tc.x), State{H: torchRows(tc.h0)})
	if err != nil {
		t.Fatal(err)
	}
	for s, want := range torchSequence(tc.out) {
		if err := cellClose(fmt.Sprintf("H_%d", s+1), tr.Steps[s].Next.H, want, tol); err != nil {
			t.Error(err)
		}
	}
	g := Backward(c, tr, torchSequence(tc.dH), BPTTOptions{})
	checks := []struct {
		name      string
		got, want *mat.Dense
	}{
		{"W_xr", c.Wxr.Grad, torchBlock(tc.gradWeightIH, 0, h)},
		{"W_xz", c.Wxz.Grad, torchBlock(tc.gradWeightIH, 1, h)},
		{"W_xh", c.Wxh.Grad, torchBlock(tc.gradWeightIH, 2, h)},
		{"W_hr", c.Whr.Grad, torchBlock(tc.gradWeightHH, 0, h)},
		{"W_hz", c.Whz.Grad, torchBlock(tc.gradWeightHH, 1, h)},
		{"W_hh", c.Whh.Grad, torchBlock(tc.gradWeightHH, 2, h)},
		{"b_r", c.Br.Grad, torchBias(0, h, tc.gradBiasIH)},
		{"b_z", c.Bz.Grad, torchBias(1, h, tc.gradBiasHH)},
		{"b_h", c.Bh.Grad, torchBias(2, h, tc.gradBiasIH)},
		{"b_hn", c.Bhn.Grad, torchBias(2, h, tc.gradBiasHH)},
		{"H_0", g.DS0.H, torchRows(tc.gradH0)},
	}
	for s, want := range torchSequence(tc.gradX) {
		checks = append(checks, struct {
			name      string
			got, want *mat.Dense
		}{fmt.Sprintf("X_%d", s+1), g.DX[s], want})
	}
	for _, ch := range checks {
		if err := cellClose("∂L/∂"+ch.name, ch.got, ch.want, tol); err != nil {
			t.Error(err)
		}
	}
}

// TestGRUByHand is a one-step example whose numbers are exact: with x = 1,
// H_0 = 0.5 and the weights below, A_r = ln 3, A_z = −ln 3, A_h = ln 3, so
// R = 3/4, Z = 1/4, H̃ = tanh(ln 3) = 4/5 and H = ¼·½ + ¾·⅘ = 0.725.
func TestGRUByHand(t *testing.T) {
	ln3 := math.Log(3)
	for _, resetAfter := range []bool{false, true} {
		c := newGRU(1, 1, resetAfter, rand.New(rand.NewPCG(1, 1)))
		for _, p := range c.Params() {
			p.Value.Zero()
		}
		c.Wxr.Value.Set(0, 0, ln3-1)
		c.Whr.Value.Set(0, 0, 2)
		c.Bz.Value.Set(0, 0, -ln3)
		c.Wxh.Value.Set(0, 0, ln3-1)
		c.Whh.Value.Set(0, 0, 8.0/3) // (R ⊙ H_0) W_hh = ⅜ · 8/3 = 1; reset-after: R (H_0 W_hh) = ¾ · 4/3 = 1
		tr, err := Forward(c, []*mat.Dense{mat.NewDense(1, 1, []float64{1})}, State{H: mat.NewDense(1, 1, []float64{0.5})})
		if err != nil {
			t.Fatal(err)
		}
		st := tr.Steps[0]
		for _, want := range []struct {
			key   string
			value float64
		}{{"R", 0.75}, {"Z", 0.25}, {"H_tilde", 0.8}, {"H", 0.725}} {
			if got := st.Gate(want.key).At(0, 0); math.Abs(got-want.value) > 1e-15 {
				t.Errorf("reset-after=%v %s: got %.17g want %g", resetAfter, want.key, got, want.value)
			}
		}
	}
}

// TestGRUGateExtremes checks the lecture's readings of the gates: Z_t ≈ 1 keeps
// the old state (the step is skipped), R_t ≈ 0 makes H̃_t forget H_{t-1}, and
// R_t ≈ 1, Z_t ≈ 0 is the vanilla RNN H_t = tanh(X_t W_xh + H_{t-1} W_hh + b_h).
func TestGRUGateExtremes(t *testing.T) {
	const saturate = 40.0 // σ(±40) is 1 or 0 to within 5e-18
	const tol = 1e-12
	rng := rand.New(rand.NewPCG(1, 1))
	x, h0, h0b := cellRandom(2, 3, rng), cellRandom(2, 4, rng), cellRandom(2, 4, rng)
	fill := func(p *Param, v float64) {
		for j := range 4 {
			p.Value.Set(0, j, v)
		}
	}

	c := NewGRU(3, 4, rng)
	fill(c.Bz, saturate)
	st := c.Step(x, State{H: h0})
	if err := cellClose("Z≈1: H_1", st.Next.H, h0, tol); err != nil {
		t.Error(err)
	}

	c = NewGRU(3, 4, rng)
	fill(c.Br, -saturate)
	a, b := c.Step(x, State{H: h0}), c.Step(x, State{H: h0b})
	if err := cellClose("R≈0: H̃_1 from two different H_0", a.Gate("H_tilde"), b.Gate("H_tilde"), tol); err != nil {
		t.Error(err)
	}

	c = NewGRU(3, 4, rng)
	fill(c.Br, saturate)
	fill(c.Bz, -saturate)
	st = c.Step(x, State{H: h0})
	rnn := &RNN{Act: ActTanh, Wxh: c.Wxh, Whh: c.Whh, Bh: c.Bh}
	if err := cellClose("R≈1, Z≈0: H_1 vs vanilla RNN", st.Next.H, rnn.Step(x, State{H: h0}).Next.H, tol); err != nil {
		t.Error(err)
	}
}

// TestGRUSequenceMatchesSteps: the sequence-level pass that Forward and Backward
// use for a lecture-form GRU gives the numbers of Step and StepBack, to 1e-12, for
// sizes that take each of its goroutine layouts, and with missing dH_t.
func TestGRUSequenceMatchesSteps(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(3)) // three workers for B = 32
	const tol = 1e-12
	cases := []struct{ T, B, d, h int }{
		{1, 1, 1, 1}, {7, 1, 3, 5}, {4, 2, 2, 3}, // small: no helper goroutines
		{32, 1, 32, 64}, {21, 4, 16, 16}, // one loop worker with helpers, several pieces
		{5, 17, 4, 6}, {6, 32, 3, 8}, // the batch split between loop workers
	}
	for _, tc := range cases {
		name := fmt.Sprintf("T=%d,B=%d,d=%d,h=%d", tc.T, tc.B, tc.d, tc.h)
		t.Run(name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 1))
			c := NewGRU(tc.d, tc.h, rng)
			xs, dH := cellSequence(tc.T, tc.B, tc.d, rng), cellSequence(tc.T, tc.B, tc.h, rng)
			dH[tc.T/2] = nil
			s0 := State{H: cellRandom(tc.B, tc.h, rng)}

			fast, err := Forward(c, xs, s0)
			if err != nil {
				t.Fatal(err)
			}
			if fast.fused == nil {
				t.Fatal("Forward did not take the sequence pass")
			}
			slow := stepwiseTrace(c, xs, s0)
			if err := cellClose("Jacobian of the last step", Jacobian(c, fast.Steps[tc.T-1], tc.B-1), Jacobian(c, slow.Steps[tc.T-1], tc.B-1), tol); err != nil {
				t.Error(err)
			}
			for s := range xs {
				for _, key := range []string{"R", "Z", "H_tilde", "H"} {
					if err := cellClose(fmt.Sprintf("step %d %s", s+1, key), fast.Steps[s].Gate(key), slow.Steps[s].Gate(key), tol); err != nil {
						t.Fatal(err)
					}
				}
			}

			c.Params().ZeroGrad()
			gFast := Backward(c, fast, dH, BPTTOptions{})
			fastGrads := cloneGrads(c.Params())
			c.Params().ZeroGrad()
			gSlow := backwardFull(c, slow, dH)
			for i, p := range c.Params() {
				if err := cellClose("∂L/∂"+p.Name, fastGrads[i], p.Grad, tol); err != nil {
					t.Error(err)
				}
			}
			for s := range xs {
				if err := cellClose(fmt.Sprintf("∂L/∂X_%d", s+1), gFast.DX[s], gSlow.DX[s], tol); err != nil {
					t.Error(err)
				}
				if math.Abs(gFast.HNorm[s]-gSlow.HNorm[s]) > tol {
					t.Errorf("HNorm[%d]: got %.15g want %.15g", s, gFast.HNorm[s], gSlow.HNorm[s])
				}
			}
			if err := cellClose("∂L/∂H_0", gFast.DS0.H, gSlow.DS0.H, tol); err != nil {
				t.Error(err)
			}
			if gFast.DS0.C != nil || gFast.CNorm != nil {
				t.Error("a GRU's gradients have a memory cell part")
			}
		})
	}
}

// TestGRUSequenceKeepsInputs: the sequence pass reads but never writes its inputs,
// and a trace stays valid after later passes reuse the scratch buffers.
func TestGRUSequenceKeepsInputs(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	c := NewGRU(2, 3, rng)
	xs, s0 := cellSequence(4, 2, 2, rng), State{H: cellRandom(2, 3, rng)}
	x0, h0 := mat.DenseCopyOf(xs[0]), mat.DenseCopyOf(s0.H)
	first, err := Forward(c, xs, s0)
	if err != nil {
		t.Fatal(err)
	}
	want := mat.DenseCopyOf(first.Last().H)
	if _, err := Forward(c, cellSequence(6, 3, 2, rng), State{}); err != nil {
		t.Fatal(err)
	}
	Backward(c, first, cellSequence(4, 2, 3, rng), BPTTOptions{})
	for _, chk := range []error{
		cellClose("X_1", xs[0], x0, 0), cellClose("H_0", s0.H, h0, 0), cellClose("H_T", first.Last().H, want, 0),
	} {
		if chk != nil {
			t.Error(chk)
		}
	}
}

// torchGRU is torch.nn.GRU(2, 3) on T=3, B=2: parameters from U(−0.8, 0.8), x, h0 and dH
// from U(−1, 1), loss Σ_t ⟨dH_t, out_t⟩, float64 (bench/pytorch/cell_golden.py).
var torchGRU = torchCase{
	weightIH:     [][]float64{{0.048464698119241235, 0.21426128953058507}, {0.042536063027630536, -0.38301228055724046}, {-0.06598247687962004, 0.04000828493753037}, {-0.288730879432835, -0.24911816515606855}, {0.023349405332637477, -0.34154126003563245}, {-0.45341179229862016, -0.3151071175422905}, {0.7521044940097719, -0.2843409099945413}, {0.10049400476340527, -0.12032898164534647}, {-0.3873491013971766, 0.714981804913437}},
	weightHH:     [][]float64{{0.3501291335713228, 0.40177804556402635, 0.793552298052634}, {-0.7869457554920299, 0.5679779892009957, -0.20665832595661265}, {0.4503383620598658, -0.5315565512272109, -0.4261826506995311}, {-0.1902540068249021, -0.3199087242597662, -0.37904100601735125}, {-0.19888428809839312, -0.1581228385233814, -0.21487108171128463}, {0.4263056934400831, 0.6593336804425389, -0.2268388467936795}, {-0.6136996148826122, 0.5251781433235598, -0.3509716239503419}, {0.27985952318930835, 0.7031905697457941, 0.0030118849176624}, {-0.3610900561729432, 0.5986265241854524, 0.055952082367709724}},
	biasIH:       []float64{0.20708936952648518, 0.29758635864376526, 0.004753066705903919, 0.26077363046155816, 0.5975706583376071, 0.343209383887157, 0.2754391378180849, 0.5206178176871399, -0.08512892736624506},
	biasHH:       []float64{0.6752201697139052, 0.7302424979648946, -0.30925155786025355, 0.6608707765745955, -0.29026228453323916, -0.5046531531092383, -0.7882486848650218, -0.6622783751694273, 0.7436403050076804},
	x:            [][][]float64{{{0.7131104951315348, -0.6872467779244411}, {-0.827867996642605, 0.36320043852947514}}, {{-0.36203048011227823, -0.033003821882505946}, {-0.9886230245366538, 0.09470999675458125}}, {{-0.4941807651778263, 0.9748534798807964}, {-0.46624700059909396, 0.25567070474409315}}},
	h0:           [][]float64{{0.7128890911038583, -0.10596185249812007, 0.62905535067671}, {-0.3205645512863453, 0.5259747151248944, 0.16251791647977099}},
	dH:           [][][]float64{{{0.038989571030197734, 0.36258966607086673, 0.6547924408693542}, {0.18177782334205972, -0.40311943375917836, -0.7041196829823839}}, {{-0.01226757261269018, 0.2524503017584254, 0.6664353358967152}, {0.2111058871902569, 0.20060273667138628, 0.23915578059271425}}, {{-0.9433810241553122, -0.05092426397569483, 0.5163964998377049}, {0.6055350794344809, 0.335307189670764, -0.6972185706445522}}},
	out:          [][][]float64{{{0.37373133366100797, 0.07597132863529346, -0.02588039033027234}, {-0.4084726929335224, 0.31950056304888885, 0.39770166507439547}}, {{0.10155214165803106, 0.10499168255904054, 0.1285596515131294}, {-0.48844436795157686, 0.16224504623389469, 0.4955963540198893}}, {{-0.18461807164592203, 0.04669910988109237, 0.4980419058966164}, {-0.5012676142880512, 0.046184579254031674, 0.5214205989297962}}},
	gradWeightIH: [][]float64{{0.024763963203938286, -0.010059149439086352}, {0.010909933149664016, 0.014558339217750925}, {0.0782967131213908, -0.05481541782564761}, {0.004193321166925799, -0.09937334057781923}, {-0.0877179462848858, 0.04554169004176702}, {0.26008526755528055, -0.3128962568249614}, {-0.22787241184645096, 0.052940135481669134}, {-0.1548158870649027, -0.11000544521203626}, {0.4473803409064816, -0.3889836710052147}},
	gradWeightHH: [][]float64{{0.04245523344505191, -0.008329274615705729, 0.00931570474808386}, {-0.004331717898182291, -0.006564158457506109, -0.03141063596670126}, {0.11289332532207101, -0.03464282354010995, -0.005977998607070049}, {-0.14894156846459433, 0.014017429010290447, -0.04641788095036628}, {-0.0676364035942108, 0.021590079596924376, -0.007882018211876111}, {0.19938021502237904, 0.001386152668906758, 0.2631082519609284}, {-0.21585619859955282, 0.07659257739567832, 0.012251491663946859}, {-0.016557623282298775, 0.06141908382050995, 0.20488928549359492}, {0.2883360289636415, -0.0499155591623266, 0.07610682493935295}},
	gradBiasIH:   []float64{0.039009011738675645, -0.06714594474561057, 0.025299865691308, -0.2960128350439167, 0.002077323285981557, 0.3387731516110476, -0.03364067218775359, 0.6220158329653177, 0.5117905006574992},
	gradBiasHH:   []float64{0.03900901173867565, -0.06714594474561056, 0.025299865691308, -0.2960128350439167, 0.002077323285981557, 0.33877315161104754, -0.030387609205457453, 0.4567712500614417, 0.2883471739697231},
	gradX:        [][][]float64{{{-0.4244841372791173, 0.28932253698058735}, {0.09430631767919592, -0.20254882268490298}}, {{-0.16064552204720942, 0.38294453284428853}, {0.08166736145058838, -0.08818677135329578}}, {{-0.04110353174316989, 0.1830745841190326}, {0.2185033793849223, -0.26259537818095935}}},
	gradH0:       [][]float64{{0.04078004615987127, 0.7273470047928919, 0.6099720203772275}, {0.4393521715629907, 0.08088720554949408, -0.5149344189387965}},
}
