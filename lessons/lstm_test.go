package lessons

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"gonum.org/v1/gonum/mat"

	"unroll/data"
	"unroll/internal/machine"
	"unroll/models"
	"unroll/sim"
	"unroll/zoo"
)

// TestLSTMCheckpoints: every shipped LSTM and RNN checkpoint reproduces the accuracy
// recorded in it by cmd/train; the LSTMs are right on ≥ 99 % of the held-out steps and
// their memory cells stay inside the page's fixed colour scale.
func TestLSTMCheckpoints(t *testing.T) {
	for _, task := range data.Tasks {
		for _, load := range []func(*data.Task) (*zoo.SeqClassifier, zoo.Meta, error){zoo.LoadLSTMClassifier, zoo.LoadPeepholeLSTMClassifier, zoo.LoadRNNClassifier} {
			m, meta, err := load(task)
			if err != nil {
				t.Fatal(err)
			}
			name := string(m.Cell.Kind()) + "-" + task.Name
			if l, ok := m.Cell.(*models.LSTM); ok && l.Peephole() {
				name = "lstm-peephole-" + task.Name
			}
			seqs := zoo.EvalSet(task)
			stepAcc, finalAcc := m.Evaluate(seqs)
			for key, got := range map[string]float64{"accuracy": stepAcc, "final_accuracy": finalAcc} {
				machine.CheckRecorded(t, name+" "+key, got, meta.Float(key), machine.RecordedCount)
				if m.Cell.Kind() == models.KindLSTM && got < 0.99 {
					t.Errorf("%s %s: got %v want ≥ 0.99", name, key, got)
				}
			}
			if m.Cell.Kind() != models.KindLSTM {
				continue
			}
			c := m.CellRange(seqs)
			machine.CheckRecorded(t, name+" c_max", c, meta.Float("c_max"), machine.RecordedSmooth)
			if c > LSTMCellScale {
				t.Errorf("%s: max |C_t| on the held-out set is %v, beyond the page's colour scale ±%d", name, c, LSTMCellScale)
			}
		}
	}
}

// TestParamFormula: the formulas 4(dh+h²+h), 3(dh+h²+h) and dh+h²+h count the real
// cells' parameters, for the page's sizes and random ones.
func TestParamFormula(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	sizes := [][2]int{{len(data.Alphabet), zoo.LSTMHidden}, {1, 1}}
	for range 5 {
		sizes = append(sizes, [2]int{1 + rng.IntN(20), 1 + rng.IntN(20)})
	}
	for _, s := range sizes {
		d, h := s[0], s[1]
		for _, kind := range []models.Kind{models.KindLSTM, models.KindGRU, models.KindRNN} {
			c, err := models.NewCell(kind, d, h, rng)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := c.Params().Count(), ParamFormula(kind, d, h); got != want {
				t.Errorf("%s d=%d h=%d: counted %d want the formula's %d", kind, d, h, got, want)
			}
		}
	}
	for kind, want := range map[models.Kind]int{models.KindLSTM: 912, models.KindGRU: 684, models.KindRNN: 228} {
		if got := ParamFormula(kind, len(data.Alphabet), zoo.LSTMHidden); got != want {
			t.Errorf("%s with d = 6, h = 12: got %d want %d (the page's prose)", kind, got, want)
		}
	}
	m, err := lstmLesson.Build(lstmLesson.Params.Defaults())
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range m.Static().Arrays {
		if a.Name == "params" && !reflect.DeepEqual(a.Data, []float64{912, 684, 228}) {
			t.Errorf("params panel: got %v want [912 684 228]", a.Data)
		}
	}
	if got := m.Static().Meta["params_lstm"].(string); !strings.Contains(got, "= 912") || !strings.HasSuffix(got, "= 912") {
		t.Errorf("params_lstm: got %q want the formula and the count, both 912", got)
	}
}

func TestLSTMTrainFromScratch(t *testing.T) {
	build := func() sim.Trainer {
		v := lstmLesson.Params.Defaults()
		v["task"], v["seed"] = "reset", "3"
		m, err := lstmLesson.Build(v)
		if err != nil {
			t.Fatal(err)
		}
		return m.(sim.Trainer)
	}
	a, b := build(), build()
	before := a.At(a.Steps())
	var first, last float64
	const steps = 300 // enough for the reset task to be mostly learnt
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
	if last > first/4 {
		t.Errorf("loss after %d steps: got %v want ≤ %v (a quarter of the first, %v)", steps, last, first/4, first)
	}
	if reflect.DeepEqual(before, a.At(a.Steps())) {
		t.Errorf("frames did not change after training")
	}
	if got := a.Static().Meta["weights"].(string); !strings.HasPrefix(got, "LSTM trained from scratch for "+strconv.Itoa(steps)+" steps (seed 3)") {
		t.Errorf("weights: got %q", got)
	}
	if !reflect.DeepEqual(a.At(3), b.At(3)) || !reflect.DeepEqual(a.Static(), b.Static()) {
		t.Errorf("trained runs from the same seed show different frames")
	}
}

// TestLSTMLessonModels checks the lesson over its defaults and edge values even
// when it is not in the catalog (TestLessonModels covers catalog lessons).
func TestLSTMLessonModels(t *testing.T) {
	for name, v := range valueSets(lstmLesson) {
		t.Run(name, func(t *testing.T) {
			m, err := lstmLesson.Build(v)
			if err != nil {
				t.Fatalf("build: %v", err)
			}
			checkModel(t, lstmLesson, m)
			m2, _ := lstmLesson.Build(v)
			for s := 1; s <= m.Steps(); s++ {
				if !reflect.DeepEqual(m.At(s), m2.At(s)) {
					t.Fatalf("step %d: two builds from the same values differ", s)
				}
			}
			if !reflect.DeepEqual(m.Static(), m2.Static()) {
				t.Fatalf("static: two builds differ")
			}
		})
	}
}

func TestLSTMBadInput(t *testing.T) {
	cases := []struct {
		task, input, want string
	}{
		{"checksum", "hello", "tokens"},
		{"checksum", "2 0 _", "tokens"},
		{"skip", "1 | 2", "tokens"},
		{"checksum", "2", "at least 2 tokens"},
		{"reset", strings.Repeat("1", data.MaxInputLen+1), "at most"},
	}
	for _, c := range cases {
		v := lstmLesson.Params.Defaults()
		v["task"], v["input"] = c.task, c.input
		_, err := lstmLesson.Build(v)
		if err == nil {
			t.Errorf("%s %q: got no error", c.task, c.input)
			continue
		}
		if msg := err.Error(); strings.Contains(msg, "lessons:") || strings.Contains(msg, "models:") || !strings.Contains(msg, c.want) {
			t.Errorf("%s %q: got %q, want a sentence containing %q", c.task, c.input, msg, c.want)
		}
	}
}

// TestGradientComparison pins what the page's prose says about the shipped models on
// the default checksum input: the vanilla RNN's gradient fades by more than 10⁻⁸ from
// the last step back to the first, the gated cells' by less than 10⁻⁴.
func TestGradientComparison(t *testing.T) {
	m, err := lstmLesson.Build(lstmLesson.Params.Defaults())
	if err != nil {
		t.Fatal(err)
	}
	lm := m.(*lstmModel)
	lm.run()
	T := lm.Steps()
	for _, c := range []struct {
		name   string
		lo, hi float64
	}{{"RNN", 0, 1e-8}, {"LSTM", 1e-4, 10}, {"GRU", 1e-4, 10}} {
		g := lm.grads[c.name]
		if ratio := g[0] / g[T-1]; !(ratio > c.lo && ratio < c.hi) {
			t.Errorf("%s: ‖∂L/∂H_1‖/‖∂L/∂H_T‖ got %v want in (%v, %v)", c.name, ratio, c.lo, c.hi)
		}
	}
}

// TestLSTMNoTargetAtEnd: when the last step asks nothing (skip input of filler only),
// the gradients use the LSTM's own answer and say so.
func TestLSTMNoTargetAtEnd(t *testing.T) {
	v := lstmLesson.Params.Defaults()
	v["task"], v["input"] = "skip", "_ _ _"
	m, err := lstmLesson.Build(v)
	if err != nil {
		t.Fatal(err)
	}
	checkModel(t, lstmLesson, m)
	if got := m.Static().Meta["gradient_of"].(string); !strings.Contains(got, "own answer") {
		t.Errorf("gradient_of: got %q want a loss on the LSTM's own answer", got)
	}
}

// TestLSTMCellScale: the C_t heatmap's colour scale holds between 95 % and 99 % of
// each task's held-out |C_t| (so typical values show colour and few saturate), and the
// page's static meta carries it for the panel.
func TestLSTMCellScale(t *testing.T) {
	for _, task := range data.Tasks {
		m, _, err := zoo.LoadLSTMClassifier(task)
		if err != nil {
			t.Fatal(err)
		}
		s := cellScale(m)
		inside, n := 0, 0
		var all []float64
		for _, ids := range zoo.EvalSet(task) {
			for _, st := range m.RunLSTM(ids, models.GateClamp{}) {
				for _, c := range st.C {
					n++
					all = append(all, math.Abs(c))
					if math.Abs(c) <= s {
						inside++
					}
				}
			}
		}
		// the prose: "half of them are under 2 on checksum and under 1 on the other
		// tasks", and "±7 on checksum"
		slices.Sort(all)
		median, bound := all[len(all)/2], 1.0
		if task.Name == "checksum" {
			bound = 2
			if s != 7 {
				t.Errorf("checksum: the scale is ±%g, the page says ±7", s)
			}
		}
		if median >= bound {
			t.Errorf("%s: the median |C_t| is %.3g, the page says under %g", task.Name, median, bound)
		}
		if share := float64(inside) / float64(n); share < 0.95 || share > 0.99 {
			t.Errorf("%s: the scale ±%g holds %.3f of |C_t|, want 0.95 to 0.99", task.Name, s, share)
		}
		v, err := lstmLesson.Params.Apply(lstmLesson.Params.Defaults(), map[string]string{"task": task.Name})
		if err != nil {
			t.Fatal(err)
		}
		lm, err := lstmLesson.Build(v)
		if err != nil {
			t.Fatal(err)
		}
		if got := lm.Static().Meta["scales"].(map[string][]float64)["C"]; len(got) != 2 || got[1] != s || got[0] != -s {
			t.Errorf("%s: the page's scale is %v, want ±%g", task.Name, got, s)
		}
	}
}

// TestLSTMCandidateWrittenOneWay: the candidate memory cell is C̃ everywhere the page,
// its facts and its exports write it: \tilde C in TeX, C + U+0303 in plain text (the
// legend), never a hat (Ĉ, \hat C) or another mark on C.
func TestLSTMCandidateWrittenOneWay(t *testing.T) {
	var all []string
	all = append(all, lstmLesson.Prose...)
	for _, e := range lstmLesson.Equations {
		all = append(all, e.TeX)
	}
	for _, a := range lstmLesson.Arrays {
		all = append(all, a.Name, a.Label)
	}
	for _, p := range lstmLesson.Panels {
		all = append(all, p.Title, p.Note)
		all = append(all, p.Legend...)
	}
	for _, p := range lstmLesson.Plots {
		all = append(all, p.Title, p.XLabel, p.YLabel)
	}
	for _, f := range slices.Concat(lstmFacts.static, lstmFacts.step) {
		all = append(all, f.label)
	}
	tilde := 0
	for _, s := range all {
		if strings.Contains(s, "Ĉ") || strings.Contains(s, `\hat C`) || strings.Contains(s, `\hat{C}`) {
			t.Errorf("%q writes the candidate with a hat", s)
		}
		r := []rune(s)
		for i := 1; i < len(r); i++ {
			if unicode.Is(unicode.Mn, r[i]) && r[i-1] == 'C' {
				if r[i] != '\u0303' {
					t.Errorf("%q puts %U on C, want the tilde U+0303", s, r[i])
				}
				tilde++
			}
		}
	}
	if tilde == 0 {
		t.Error("no plain-text C̃ found: the legend should write the candidate as C̃")
	}
}

// lstmArrays builds the lstm page at v and returns step t's arrays by name.
func lstmArrays(t *testing.T, v sim.Values, step int) (sim.Model, map[string][]float64) {
	t.Helper()
	m, err := lstmLesson.Build(v)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]float64{}
	for _, a := range m.At(step).Arrays {
		out[a.Name] = a.Data
	}
	return m, out
}

// TestLSTMPeepholeVariant: the peephole form (seed 003) loads its own trained
// checkpoint, a peephole LSTM with 3h more parameters than 4(dh + h² + h); the
// comparison panel shows the plain LSTM's and the peephole LSTM's C_t on the same input
// whichever form the other panels show; the facts give both answers and both held-out
// accuracies; training from scratch in that form trains a peephole LSTM.
func TestLSTMPeepholeVariant(t *testing.T) {
	d, h := len(data.Alphabet), zoo.LSTMHidden
	v := lstmLesson.Params.Defaults()
	plainM, plain := lstmArrays(t, v, 5)
	v["variant"] = lstmPeephole
	peepM, peep := lstmArrays(t, v, 5)
	if !reflect.DeepEqual(plain["C_plain"], plain["C"]) || !reflect.DeepEqual(peep["C_peephole"], peep["C"]) {
		t.Errorf("the comparison's C_t of the shown form is not the shown C_t")
	}
	if !reflect.DeepEqual(plain["C_peephole"], peep["C"]) || !reflect.DeepEqual(peep["C_plain"], plain["C"]) {
		t.Errorf("the comparison shows different C_t for the same form in the two page states")
	}
	if reflect.DeepEqual(plain["C"], peep["C"]) {
		t.Errorf("the peephole form shows the plain LSTM's numbers")
	}
	cell := peepM.(*lstmModel).lstm.Cell.(*models.LSTM)
	if !cell.Peephole() || plainM.(*lstmModel).lstm.Cell.(*models.LSTM).Peephole() {
		t.Fatalf("the peephole form should load a peephole LSTM and the plain form a plain one")
	}
	for _, a := range peepM.Static().Arrays {
		if want := float64(ParamFormula(models.KindLSTM, d, h) + 3*h); a.Name == "params" && a.Data[0] != want {
			t.Errorf("peephole LSTM parameters: got %v want 4(dh+h²+h) + 3h = %v", a.Data[0], want)
		}
	}
	if got := peepM.Static().Meta["params_lstm"].(string); !strings.HasPrefix(got, "4(dh+h²+h)+3h") {
		t.Errorf("params_lstm of the peephole form: %q", got)
	}
	_, pMeta, _ := zoo.SharedSeq(zoo.PeepholeCheckpointFile("checksum"))
	_, lMeta, _ := zoo.SharedSeq(zoo.LSTMCheckpointFile("checksum"))
	facts := peepM.Static().Meta["variants"].(string)
	for _, want := range []string{"peephole LSTM (shown)", "LSTM (no peepholes)", pct(pMeta.Float("accuracy")), pct(lMeta.Float("accuracy"))} {
		if !strings.Contains(facts, want) {
			t.Errorf("the variants fact %q lacks %q", facts, want)
		}
	}
	v["seed"] = "2"
	m, err := lstmLesson.Build(v)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.(sim.Trainer).TrainStep(); err != nil {
		t.Fatal(err)
	}
	if !m.(*lstmModel).lstm.Cell.(*models.LSTM).Peephole() {
		t.Errorf("training from scratch in the peephole form trained an LSTM without peepholes")
	}
}

// TestLSTMForgetBiasOne: every LSTM the page trains, bundled or from scratch, plain or
// with peepholes, starts with b_f = 1 exactly for every unit (the page says so), and
// the bundled checkpoints record that they were trained so.
func TestLSTMForgetBiasOne(t *testing.T) {
	for _, task := range data.Tasks {
		for name, c := range map[string]*zoo.SeqClassifier{"lstm": zoo.NewLSTMClassifier(task, 7), "peephole": zoo.NewPeepholeLSTMClassifier(task, 7)} {
			for j, b := range c.Cell.(*models.LSTM).Bf.Value.RawRowView(0) {
				if b != 1 {
					t.Errorf("%s %s: b_f of unit %d starts at %v, want 1", task.Name, name, j+1, b)
				}
			}
		}
		for _, file := range []string{zoo.LSTMCheckpointFile(task.Name), zoo.PeepholeCheckpointFile(task.Name)} {
			_, meta, err := zoo.SharedSeq(file)
			if err != nil {
				t.Fatal(err)
			}
			if got := meta.Float("forget_bias_init"); got != 1 {
				t.Errorf("%s: trained from b_f = %v, want 1", file, got)
			}
		}
	}
	if !strings.Contains(strings.Join(lstmLesson.Prose, " "), `forget-gate bias \(b_f = 1\)`) {
		t.Errorf("the prose does not state b_f = 1")
	}
	m, err := lstmLesson.Build(lstmLesson.Params.Defaults())
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Static().Meta["forget_bias"].(string); !strings.HasPrefix(got, "1 for every unit") || !strings.Contains(got, "≈ 0.73") {
		t.Errorf("forget_bias fact: %q", got)
	}
}

// TestLSTMCellInternal: the memory cell is entirely internal (seed 004): the page's
// ŷ_t is the output layer applied to H_t alone, and with O_t clamped to 0 (H_t = 0)
// the answer is the same for any input, however different the cells are.
func TestLSTMCellInternal(t *testing.T) {
	m, _, err := zoo.LoadLSTMClassifier(data.ChecksumTask)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range m.RunLSTM([]int{2, 0, 3, 1, 2}, Clamp{}) {
		logits := m.Out.Forward(mat.NewDense(1, len(st.H), slices.Clone(st.H))).RawRowView(0)
		p := make([]float64, len(logits))
		models.Softmax(p, logits)
		if !reflect.DeepEqual(p, st.Probs) {
			t.Fatalf("ŷ_t %v is not softmax(H_t W_q + b_q) = %v", st.Probs, p)
		}
	}
	closed := Clamp{Gate: "O", Value: 0}
	a, b := m.RunLSTM([]int{2, 0, 3, 1, 2}, closed), m.RunLSTM([]int{1, 1, 1, 1, 1}, closed)
	if reflect.DeepEqual(a[4].C, b[4].C) {
		t.Fatalf("the two inputs should leave different cells")
	}
	if !reflect.DeepEqual(a[4].Probs, b[4].Probs) {
		t.Errorf("with O_t = 0 the answers differ (%v, %v): the cell leaked out", a[4].Probs, b[4].Probs)
	}
	if !strings.Contains(strings.Join(lstmLesson.Prose, " "), "The memory cell is entirely internal") {
		t.Errorf("the prose does not say the memory cell is internal")
	}
}
