package lessons

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"unroll/data"
	"unroll/models"
	"unroll/sim"
	"unroll/zoo"
)

func TestParsePrompt(t *testing.T) {
	if ids, err := ParsePrompt("The Sea"); err != nil || len(ids) != 7 {
		t.Errorf("ParsePrompt(%q): got %v, %v want 7 ids (lowercased)", "The Sea", ids, err)
	}
	for _, c := range []struct{ in, want string }{
		{"", "the prompt is empty"},
		{"hello!", `"!" is not one of them`},
		{"3 cats", `"3" is not one of them`},
		{strings.Repeat("a", charMaxPrompt+1), "at most 40"},
	} {
		_, err := ParsePrompt(c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParsePrompt(%q): got %v want an error containing %q", c.in, err, c.want)
		}
	}
}

func TestCharTrainFromScratch(t *testing.T) {
	build := func() *rnnModel {
		m, err := rnnLesson.Build(rnnLesson.Params.Defaults())
		if err != nil {
			t.Fatal(err)
		}
		return m.(*rnnModel)
	}
	a, b := build(), build()
	var first, last float64
	const steps = 100
	for i := range steps {
		fa, err := a.TrainStep()
		if err != nil {
			t.Fatal(err)
		}
		fb, _ := b.TrainStep()
		la, lb := fa.Meta["loss"].(float64), fb.Meta["loss"].(float64)
		if la != lb {
			t.Fatalf("train step %d: same seed gave losses %v and %v", i+1, la, lb)
		}
		if i == 0 {
			first = la
		}
		last = la
	}
	if last > 0.75*first {
		t.Errorf("loss after %d steps: got %v want ≤ 0.75 × the first (%v)", steps, last, first)
	}
	if T := a.Steps(); a.At(T).Meta["written"] != b.At(T).Meta["written"] {
		t.Errorf("same seed, same training: different samples")
	}
}

// buildRNNWith builds the rnn lesson's model with the defaults and the given changes.
func buildRNNWith(t *testing.T, changes map[string]string) *rnnModel {
	t.Helper()
	v := rnnLesson.Params.Defaults()
	for k, x := range changes {
		v[k] = x
	}
	m, err := rnnLesson.Build(v)
	if err != nil {
		t.Fatal(err)
	}
	return m.(*rnnModel)
}

// TestRNNTopK: every step sends exactly k candidates (the slider's value, up to its
// maximum), most probable first, each p equal to that character's P entry.
func TestRNNTopK(t *testing.T) {
	for _, k := range []int{1, 5, 10} {
		m := buildRNNWith(t, map[string]string{"topk": strconv.Itoa(k), "temperature": "2"})
		for step := 1; step <= m.Steps(); step++ {
			f := m.At(step)
			top := f.Meta["topk"].([]charProb)
			if len(top) != k {
				t.Fatalf("k = %d, step %d: got %d candidates want %d", k, step, len(top), k)
			}
			probs := f.Arrays[slices.IndexFunc(f.Arrays, func(a sim.Array) bool { return a.Name == "P" })].Data
			for i, e := range top {
				p, id := e.P, data.CharID(e.Token)
				if id < 0 || p != sig4(probs[id]) {
					t.Fatalf("k = %d, step %d, rank %d: got %q with p = %v want a character of the vocabulary with p = P[id]", k, step, i+1, e.Token, p)
				}
				if i > 0 && p > top[i-1].P {
					t.Fatalf("k = %d, step %d: rank %d has p = %v > rank %d's %v", k, step, i+1, p, i, top[i-1].P)
				}
				want, _ := json.Marshal(map[string]any{"token": e.Token, "p": e.P}) // what a map sent before
				if got, _ := json.Marshal(e); !bytes.Equal(got, want) {
					t.Fatalf("k = %d, step %d, rank %d: JSON %s want %s", k, step, i+1, got, want)
				}
			}
		}
	}
}

// TestRNNSampleTokens: the static tokens are the inputs x_1 … x_T, each step's own
// "token" is x_t, the phase turns to "sample" after the prompt, and "written" holds
// exactly the characters sampled so far (x_{P+1} … x_{t+1}), none of the later ones.
func TestRNNSampleTokens(t *testing.T) {
	m := buildRNNWith(t, nil)
	st := m.Static().Meta
	tokens, P := st["tokens"].([]string), st["prompt_len"].(int)
	if _, ok := st["generated"]; ok {
		t.Errorf("the static frame holds the whole generated text; it must come step by step")
	}
	if len(tokens) != m.Steps() || strings.Join(tokens[:P], "") != "the sea " {
		t.Fatalf("static tokens %q (prompt_len %d): want %d tokens starting with the prompt", tokens, P, m.Steps())
	}
	for step := 1; step <= m.Steps(); step++ {
		meta := m.At(step).Meta
		if meta["token"] != tokens[step-1] {
			t.Errorf("step %d: token %q want x_%d = %q", step, meta["token"], step, tokens[step-1])
		}
		if want := map[bool]string{false: "prompt", true: "sample"}[step > P]; meta["phase"] != want {
			t.Errorf("step %d: phase %q want %q", step, meta["phase"], want)
		}
		want := strings.ReplaceAll(strings.Join(tokens[P:min(len(tokens), max(P, step+1))], ""), "\n", "↵")
		if got, _ := meta["written"].(string); got != want {
			t.Errorf("step %d: written %q want %q", step, got, want)
		}
	}
}

// TestRNNGuessShowsBlanks: a guess of a space or a newline is written ␣ or ↵ in the
// facts, never as an invisible character.
func TestRNNGuessShowsBlanks(t *testing.T) {
	m := buildRNNWith(t, nil)
	spaces := 0
	for step := 1; step <= m.Steps(); step++ {
		meta := m.At(step).Meta
		for _, key := range []string{"A_guess", "B_guess"} {
			g := meta[key].(string)
			if c, _, _ := strings.Cut(g, " (p = "); c == "" || strings.ContainsAny(c, " \n") {
				t.Errorf("step %d: %s = %q: the character is not visible", step, key, g)
			}
			if strings.HasPrefix(g, "␣ (p = ") {
				spaces++
			}
		}
	}
	if spaces == 0 {
		t.Errorf("no guess of a space in %d steps: the test checks nothing", m.Steps())
	}
	for in, want := range map[string]string{" ": "␣", "\n": "↵", "a": "a", ".": "."} {
		if got := shownChar(in); got != want {
			t.Errorf("shownChar(%q): got %q want %q", in, got, want)
		}
	}
}

// TestRnnAlphabetNamed (issue 14): the prompt's help and a refusal name the characters
// the model really knows, computed from its training text: every letter a–z it has,
// the ones it lacks, and its punctuation; a character it lacks is refused.
func TestRnnAlphabetNamed(t *testing.T) {
	for r := 'a'; r <= 'z'; r++ {
		c := string(r)
		has := strings.Contains(data.CharCorpus, c)
		if named := strings.Contains(charAlphabet, " "+c+" ") || strings.HasSuffix(strings.SplitN(charAlphabet, ",", 2)[0], " "+c); has != named {
			t.Errorf("%q: in the corpus %v, named as known %v: %s", c, has, named, charAlphabet)
		}
		if _, err := ParsePrompt(c); (err == nil) != has {
			t.Errorf("%q: in the corpus %v, but ParsePrompt gave %v", c, has, err)
		}
	}
	for c, name := range charNames {
		if strings.Contains(data.CharCorpus, c) != strings.Contains(charAlphabet, name) {
			t.Errorf("%q (%s): the alphabet's words disagree with the corpus: %s", c, name, charAlphabet)
		}
	}
	_, err := ParsePrompt("the sea!")
	if err == nil || !strings.Contains(err.Error(), charAlphabet) {
		t.Errorf("the sea!: got %v, want a refusal naming the alphabet", err)
	}
	if _, err := ParsePrompt("the quick fox, calm."); err != nil {
		t.Errorf("a prompt of known characters was refused: %v", err)
	}
}

// TestRNNModelAndSampling (seeds 002, 003): P is the model's softmax(O_t), P_tau the
// distribution writing draws from, softmax(O_t / τ) = softmax(log P / τ); the step
// facts give P, −log₂ P and (while writing) the sampling probability of the character
// that came next; the static facts give the text's negative log-likelihood
// ℓ = −Σ log P(x_{t+1} | x_1 … x_t), which is the training loss (the language model's
// MeanNLL) times T − 1, its bits per character ℓ / ((T − 1) ln 2) and perplexity
// 2^bits. Text written at τ = 2 costs more bits than text written at τ = 0.5.
func TestRNNModelAndSampling(t *testing.T) {
	meanBits := map[string]float64{}
	for _, tau := range []string{"0.5", "1", "2"} {
		for seed := 1; seed <= 4; seed++ {
			m := buildRNNWith(t, map[string]string{"temperature": tau, "seed": strconv.Itoa(seed)})
			all, T, P := m.inputs(), m.Steps(), len(m.prompt)
			tv, _ := strconv.ParseFloat(tau, 64)
			nll := 0.0
			for step := 1; step <= T; step++ {
				f := m.At(step)
				p, q := arrayOf(f, "P"), arrayOf(f, "P_tau")
				norm := 0.0
				for _, x := range p {
					norm += math.Exp(math.Log(x) / tv)
				}
				for k := range p {
					if want := math.Exp(math.Log(p[k])/tv) / norm; math.Abs(q[k]-want) > 1e-9 {
						t.Fatalf("τ = %s, step %d, entry %d: P_tau %v want softmax(log P / τ) %v", tau, step, k, q[k], want)
					}
				}
				if step == T {
					if _, ok := f.Meta["next_p"]; ok {
						t.Errorf("τ = %s: the last step has a next character's P, but nothing follows it", tau)
					}
					continue
				}
				next := all[step]
				nll -= math.Log(p[next])
				if f.Meta["next_p"] != sig4(p[next]) || f.Meta["next_bits"] != sig4(-math.Log2(p[next])) {
					t.Errorf("τ = %s, step %d: next_p %v, next_bits %v want %v, %v", tau, step, f.Meta["next_p"], f.Meta["next_bits"], sig4(p[next]), sig4(-math.Log2(p[next])))
				}
				got, ok := f.Meta["next_tau"]
				if sampled := step >= P; ok != sampled || (sampled && got != sig4(q[next])) {
					t.Errorf("τ = %s, step %d: next_tau %v (present %v) want %v only while writing", tau, step, got, ok, sig4(q[next]))
				}
			}
			st := m.Static().Meta
			bits := nll / float64(T-1) / math.Ln2
			for _, step := range []int{T - 1, T} { // every prediction is in by then
				if f := m.At(step).Meta; f["bits_so_far"] != sig4(bits) || f["perplexity_so_far"] != sig4(math.Exp2(bits)) {
					t.Errorf("τ = %s, step %d: bits so far %v, perplexity so far %v want the text's %v, %v", tau, step, f["bits_so_far"], f["perplexity_so_far"], sig4(bits), sig4(math.Exp2(bits)))
				}
			}
			if f := m.At(1).Meta; f["bits_so_far"] != sig4(-math.Log2(arrayOf(m.At(1), "P")[all[1]])) {
				t.Errorf("τ = %s, step 1: bits so far %v want −log₂ P(x_2 | x_1)", tau, f["bits_so_far"])
			}
			if st["nll"] != sig4(nll) || st["bits_per_char"] != sig4(bits) || st["perplexity"] != sig4(math.Exp2(bits)) {
				t.Errorf("τ = %s: static nll %v, bits %v, perplexity %v want %v, %v, %v", tau, st["nll"], st["bits_per_char"], st["perplexity"], sig4(nll), sig4(bits), sig4(math.Exp2(bits)))
			}
			if loss := m.lm.MeanNLL(all) * float64(T-1); math.Abs(loss-nll) > 1e-9 {
				t.Errorf("τ = %s: the training loss on the text × (T − 1) is %v, ℓ is %v", tau, loss, nll)
			}
			meanBits[tau] += bits / 4
		}
	}
	if meanBits["2"] <= meanBits["0.5"]+0.5 {
		t.Errorf("mean bits per character over 4 seeds: τ = 2 %.3f, τ = 0.5 %.3f: want text written hot to cost ≥ 0.5 bits more", meanBits["2"], meanBits["0.5"])
	}
	t.Logf("mean bits per character of the page's text: %v", meanBits)
}

// TestRNNTrainSamples: training from scratch writes a sample with the weights of the
// moment after the first step and every rnnSampleEvery steps; every progress frame
// carries the newest one and its step; the sample after step 100 is what the page
// writes with those weights, and it differs from the first.
func TestRNNTrainSamples(t *testing.T) {
	m := buildRNNWith(t, nil)
	var first string
	for i := 1; i <= 2*rnnSampleEvery; i++ {
		f, err := m.TrainStep()
		if err != nil {
			t.Fatal(err)
		}
		s, _ := f.Meta["sample"].(string)
		at, _ := f.Meta["sample_step"].(int)
		if want := max(1, i/rnnSampleEvery*rnnSampleEvery); at != want {
			t.Fatalf("training step %d: sample_step %d want %d", i, at, want)
		}
		if len([]rune(s)) != m.n {
			t.Fatalf("training step %d: sample %q has %d characters want %d", i, s, len([]rune(s)), m.n)
		}
		if i == 1 {
			first = s
		}
		if i == at { // drawn now: the text the page writes with these weights
			if w := m.written(m.Steps()); s != w {
				t.Fatalf("training step %d: sample %q, the page writes %q", i, s, w)
			}
		}
	}
	if last := m.sample; last == first {
		t.Errorf("the sample after %d training steps is the one after 1: %q", 2*rnnSampleEvery, last)
	}
	t.Logf("after 1 step: %q; after %d: %q", first, 2*rnnSampleEvery, m.sample)
}

// TestRNNCReadout: C's readout softmax(H_t W_hq + b_q) at step t is the answer C gives
// when the text ends at t, so the step fact "had the text ended here" is C's own
// answer on that prefix; and the bundled C is right on the page's text for these seeds
// and temperatures, so no "why it is wrong" fact appears.
func TestRNNCReadout(t *testing.T) {
	for _, tau := range []string{"0.1", "0.8", "2"} {
		for seed := 1; seed <= 5; seed++ {
			m := buildRNNWith(t, map[string]string{"temperature": tau, "seed": strconv.Itoa(seed)})
			all := m.inputs()
			for k := 1; k < len(all); k += 7 {
				run := m.archC.Run(all[:k])
				want := run[k-1].Probs
				f := m.At(k)
				out := f.Meta["C_output"].(string)
				ans := fmt.Sprintf("had the text ended here: %s, p = %.3f)", zoo.ArchCClasses[models.Argmax(want)], want[models.Argmax(want)])
				if !strings.HasSuffix(out, ans) {
					t.Fatalf("τ = %s, seed %d, step %d: C_output %q want it to end %q (C's answer on x_1 … x_%d)", tau, seed, k, out, ans, k)
				}
			}
			if end := m.At(len(all)).Meta; !strings.HasSuffix(end["C_output"].(string), ", right") || end["C_why"] != nil {
				t.Errorf("τ = %s, seed %d: C on %q: %v, %v", tau, seed, m.written(m.Steps()), end["C_output"], end["C_why"])
			}
		}
	}
}

// TestRNNCWhy: when C's answer is wrong, the facts say where the text says "sea" and
// where C's readout lost it, how many of the text's 4-grams its training text lacks,
// and that the text is longer than C's training windows, each recomputed here. A C of
// untrained weights (zoo.NewArchC) stands for a C that errs.
func TestRNNCWhy(t *testing.T) {
	wrong := 0
	for seed := uint64(1); seed <= 20 && wrong < 3; seed++ {
		m := buildRNNWith(t, map[string]string{"length": "70"})
		m.archC, m.steps = zoo.NewArchC(seed), nil
		all := m.inputs()
		end := m.At(len(all)).Meta // where C's answer is shown
		why, ok := end["C_why"].(string)
		last := m.archC.Run(all)[len(all)-1].Probs
		isWrong := models.Argmax(last) != zoo.ArchCLabel(all)
		if ok != isWrong || strings.HasSuffix(end["C_output"].(string), ", wrong") != isWrong {
			t.Fatalf("C of seed %d: wrong %v but C_output %q, C_why %q", seed, isWrong, end["C_output"], why)
		}
		if !ok {
			continue
		}
		wrong++
		text := strings.Join(m.Static().Meta["tokens"].([]string), "")
		e := len([]rune(text[:strings.LastIndex(text, "sea")])) + 3
		if want := fmt.Sprintf("at t = %d–%d", e-2, e); !strings.Contains(why, want) {
			t.Errorf("C of seed %d: %q does not say %q", seed, why, want)
		}
		n, k := 0, 0
		rs := []rune(text)
		for i := 0; i+4 <= len(rs); i++ {
			n++
			if !strings.Contains(data.CharCorpus, string(rs[i:i+4])) {
				k++
			}
		}
		if want := fmt.Sprintf("%d of the text's %d character 4-grams", k, n); k > 0 && !strings.Contains(why, want) {
			t.Errorf("C of seed %d: %q does not say %q", seed, why, want)
		}
		if want := fmt.Sprintf("it is %d characters long, C trained on at most %d", len(all), zoo.ArchCMaxLen); !strings.Contains(why, want) {
			t.Errorf("C of seed %d: %q does not say %q", seed, why, want)
		}
	}
	if wrong == 0 {
		t.Fatal("no untrained C was wrong: the test checks nothing")
	}
}

// TestRNNArchBitsFacts: the facts' bits per character of A and B on their training
// text are the bundled models' own, and B's are higher, as the prose says (B writes
// worse than A: it carries forward only what its output shows).
func TestRNNArchBitsFacts(t *testing.T) {
	st := buildRNNWith(t, nil).Static().Meta
	lm, err := zoo.SharedCharLM()
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := zoo.LoadArchModels()
	if err != nil {
		t.Fatal(err)
	}
	a, bb := lm.BitsPerChar(), b.BitsPerChar()
	for key, want := range map[string]float64{"A_bits": a, "B_bits": bb} {
		if got, _ := st[key].(float64); math.Abs(got-want) > 1e-6*want {
			t.Errorf("%s: got %v want the model's %v", key, st[key], want)
		}
	}
	if bb < a+0.5 {
		t.Errorf("B's bits per character %v, A's %v: the prose says B writes worse", bb, a)
	}
}

// TestRNNArchitectureNames (seeds 002, 003): the graph panels name A and B
// many-to-many and C many-to-one, as their outputs are: A's P and B's guess at every
// step, C's answer at the last step only.
func TestRNNArchitectureNames(t *testing.T) {
	titles := map[string]string{}
	for _, p := range rnnLesson.Panels {
		titles[p.ID] = p.Title
	}
	for id, name := range map[string]string{"graph": "many-to-many", "graph-b": "many-to-many", "graph-c": "many-to-one"} {
		if !strings.Contains(titles[id], "("+name) {
			t.Errorf("panel %s: title %q does not name %s", id, titles[id], name)
		}
	}
	m := buildRNNWith(t, nil)
	T := m.Steps()
	for step := 1; step <= T; step++ {
		f := m.At(step)
		if len(arrayOf(f, "P")) != len(data.CharVocab) || f.Meta["B_guess"] == nil {
			t.Errorf("step %d: A or B has no output", step)
		}
		if hasC := m.stepsC[step-1].Probs != nil; hasC != (step == T) {
			t.Errorf("step %d of %d: C has an output: %v", step, T, hasC)
		}
	}
}
