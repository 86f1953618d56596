package lessons

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"unroll/data"
	"unroll/models"
	"unroll/sim"
	"unroll/zoo"
)

// charMaxPrompt is the longest prompt: it must fit the page's heatmaps.
const charMaxPrompt = 40

// newlineShown stands for "\n" where a character is shown as text, as SpaceToken
// (␣) stands for the space: both are invisible in a sentence of the facts.
const newlineShown = "↵"

// shownChar is the character c of CharVocab as the page writes it in running text:
// ␣ for the space, ↵ for the newline, c itself otherwise (static/js/panels/common.js
// token draws the same in the panels).
func shownChar(c string) string {
	switch c {
	case " ":
		return data.SpaceToken
	case "\n":
		return newlineShown
	}
	return c
}

// charAlphabet names the characters the character model knows, in words: the letters
// of its training text (data.CharCorpus), with those it lacks named, and the other
// characters a prompt can hold (space and punctuation; the newline cannot be typed).
var charAlphabet = func() string {
	var have, lack []string
	for r := 'a'; r <= 'z'; r++ {
		if data.CharID(string(r)) >= 0 {
			have = append(have, string(r))
		} else {
			lack = append(lack, string(r))
		}
	}
	s := "the letters " + strings.Join(have, " ")
	if len(lack) > 0 {
		s += " (no " + strings.Join(lack, ", ") + ")"
	}
	var other []string
	for _, c := range data.CharVocab {
		if name, ok := charNames[c]; ok {
			other = append(other, name)
		} else if c != "\n" && (c < "a" || c > "z") {
			other = append(other, strconv.Quote(c))
		}
	}
	switch len(other) {
	case 0:
	case 1:
		s += " and " + other[0]
	default:
		s += ", " + strings.Join(other[:len(other)-1], ", ") + " and " + other[len(other)-1]
	}
	return s
}()

// charNames are the names of the corpus's punctuation in the alphabet's words.
var charNames = map[string]string{" ": "space", ",": "comma", ".": "full stop"}

// ParsePrompt turns a typed prompt into character ids (lowercased).
func ParsePrompt(text string) ([]int, error) {
	text = strings.ToLower(text)
	var ids []int
	for _, r := range text {
		id := data.CharID(string(r))
		if id < 0 {
			return nil, fmt.Errorf("the model only knows the characters of its training text, %s; %q is not one of them", charAlphabet, string(r))
		}
		ids = append(ids, id)
	}
	switch {
	case len(ids) == 0:
		return nil, fmt.Errorf("the prompt is empty: type a few characters, such as %q", "the sea ")
	case len(ids) > charMaxPrompt:
		return nil, fmt.Errorf("the prompt has %d characters; at most %d fit on the page", len(ids), charMaxPrompt)
	}
	return ids, nil
}

// rnnModel is the RNN lesson's sim.Model: the language model reading a prompt and
// then writing, one character per step.
type rnnModel struct {
	lm      *zoo.CharLM // the shared bundled one (read-only) until TrainStep starts one of its own
	archB   *zoo.ArchB  // architecture B on the same characters
	archC   *zoo.ArchC  // architecture C on the same characters
	stepsB  []zoo.ArchStep
	stepsC  []zoo.ArchStep
	readC   [][]float64 // C's readout softmax(H_t W_hq + b_q) at every step: its answer had the text ended there
	prompt  []int
	n, topK int
	tau     float64
	seed    uint64
	steps   []zoo.CharStep // nil after training changed the weights
	gen     []int

	scratch // training from scratch: the first TrainStep starts a fresh model from seed
	// sample is the text the model wrote at sampleStep training steps (the newest
	// sample drawn while training), sent in every training progress frame.
	sample     string
	sampleStep int
}

// rnnSampleEvery is how often training writes a sample: every 50 training steps (and
// after the first). A sample is the page's own run, at most 160 single-character steps,
// less than one training step's work (16 windows of 32 characters, forward and back),
// so sampling adds at most about 2% to training.
const rnnSampleEvery = 50

func buildRNN(v sim.Values) (sim.Model, error) {
	prompt, err := ParsePrompt(v.String("prompt"))
	if err != nil {
		return nil, err
	}
	lm, err := zoo.SharedCharLM() // shared and read-only: TrainStep replaces it by fresh weights
	if err != nil {
		return nil, err
	}
	b, c, err := zoo.LoadArchModels()
	if err != nil {
		return nil, err
	}
	m := &rnnModel{lm: lm, archB: b, archC: c, prompt: prompt, n: v.Int("length"), topK: v.Int("topk"), tau: v.Float("temperature"),
		seed: uint64(v.Int("seed"))}
	return m, nil
}

func (m *rnnModel) run() []zoo.CharStep {
	if m.steps == nil {
		rng := rand.New(rand.NewPCG(m.seed, 0x5a3))
		m.steps, m.gen = m.lm.Generate(m.prompt, m.n, m.tau, rng)
		all := append(slices.Clone(m.prompt), m.gen...)[:len(m.steps)]
		m.stepsB, m.stepsC = m.archB.Run(all), m.archC.Run(all)
		m.readC = make([][]float64, len(m.stepsC))
		for t, st := range m.stepsC {
			m.readC[t] = m.archC.Readout(st.H)
		}
	}
	return m.steps
}

func (m *rnnModel) Steps() int { return len(m.prompt) + m.n }

// inputs is every character read, t = 1..Steps: the prompt, then the samples but the last.
func (m *rnnModel) inputs() []int {
	m.run()
	return append(slices.Clone(m.prompt), m.gen...)
}

// Static holds what does not change with the step. "tokens" lists every character
// read, x_1 … x_T: the first "prompt_len" are the prompt, typed and known from the
// start; the others are the model's samples, x_t drawn at step t − 1, so a panel
// shows x_t for t > prompt_len only once step t is drawn (each step's frame also
// carries its own "token"). What has been written so far is the per-step "written".
func (m *rnnModel) Static() sim.Frame {
	m.run()
	all := m.inputs()
	tokens := make([]string, len(all))
	for i, id := range all {
		tokens[i] = data.CharVocab[id]
	}
	meta := map[string]any{
		"tokens":       tokens,
		"prompt_len":   len(m.prompt),
		"vocab":        data.CharVocab, // the labels of X_t's and P's entries, by index
		"hidden":       zoo.CharHidden,
		"params":       m.lm.Params().Count(),
		"architecture": "A",
		"temperature":  m.tau,
		// the graph panels' architectures, by panel id
		"archs": map[string]string{"graph": "A", "graph-b": "B", "graph-c": "C"},
	}
	last := m.stepsC[len(m.stepsC)-1].Probs
	meta["C_answer"] = fmt.Sprintf("%s (p = %.3f)", zoo.ArchCClasses[models.Argmax(last)], last[models.Argmax(last)])
	meta["C_truth"] = zoo.ArchCClasses[zoo.ArchCLabel(all)]
	nll := m.nllTo(len(all))
	bits := nll / float64(len(all)-1) / math.Ln2
	meta["nll"], meta["bits_per_char"], meta["perplexity"] = sig4(nll), sig4(bits), sig4(math.Exp2(bits))
	if rec, err := zoo.RecordedBitsPerChar(); err == nil {
		if m.trained == 0 {
			meta["A_bits"] = rec[0]
		}
		meta["B_bits"] = rec[1]
	}
	if m.trained == 0 {
		meta["weights"] = "bundled checkpoint"
	} else {
		meta["weights"] = fmt.Sprintf("trained from scratch for %d steps (seed %d)", m.trained, m.seed)
	}
	return sim.Frame{Meta: meta}
}

// nllTo is −Σ log P(x_{s+1} | x_1 … x_s) over the predictions of steps s = 1 … t
// whose character is known (s < T): the negative log-likelihood of x_2 … x_{t+1}.
func (m *rnnModel) nllTo(t int) float64 {
	all := m.inputs()
	nll := 0.0
	for s, st := range m.run()[:min(t, len(all)-1)] {
		nll -= math.Log(st.Probs[all[s+1]])
	}
	return nll
}

// written is the text the model has sampled by step t: from the prompt's last step
// P on, step t draws x_{t+1}, so it is x_{P+1} … x_{t+1} (at most the n samples),
// with a newline shown as ↵.
func (m *rnnModel) written(t int) string {
	m.run()
	k := min(len(m.gen), t-len(m.prompt)+1)
	var text strings.Builder
	for _, id := range m.gen[:max(0, k)] {
		c := data.CharVocab[id]
		if c == "\n" {
			c = newlineShown
		}
		text.WriteString(c)
	}
	return text.String()
}

// charProb is one row of a step's top-k list. A struct rather than a map: a run
// caches every step's frame, and at k = 10 over 160 steps maps took half a megabyte.
// The JSON is a map's, keys in sorted order.
type charProb struct {
	P     float64 `json:"p"`
	Token string  `json:"token"`
}

func (m *rnnModel) At(t int) sim.Frame {
	st := m.run()[t-1]
	all := m.inputs()
	order := make([]int, len(st.Probs))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return st.Probs[order[a]] > st.Probs[order[b]] })
	top := make([]charProb, m.topK)
	for i := range top {
		top[i] = charProb{P: sig4(st.Probs[order[i]]), Token: data.CharVocab[order[i]]}
	}
	phase := "prompt"
	if t > len(m.prompt) {
		phase = "sample"
	}
	meta := map[string]any{"token": data.CharVocab[all[t-1]], "phase": phase, "topk": top}
	if t < len(all) { // the last step's prediction is not sampled
		meta["next"] = data.CharVocab[all[t]]
	}
	if w := m.written(t); w != "" {
		meta["written"] = w
	}
	if t < len(all) {
		p := st.Probs[all[t]]
		meta["next_p"], meta["next_bits"] = sig4(p), sig4(-math.Log2(p))
		if t >= len(m.prompt) { // x_{t+1} was drawn from the sampling distribution
			meta["next_tau"] = sig4(st.Tau[all[t]])
		}
	}
	pb := m.stepsB[t-1].Probs
	meta["A_guess"] = fmt.Sprintf("%s (p = %.3f)", shownChar(data.CharVocab[order[0]]), st.Probs[order[0]])
	meta["B_guess"] = fmt.Sprintf("%s (p = %.3f)", shownChar(data.CharVocab[models.Argmax(pb)]), pb[models.Argmax(pb)])
	if n := min(t, len(all)-1); n > 0 {
		bits := m.nllTo(t) / float64(n) / math.Ln2
		meta["bits_so_far"], meta["perplexity_so_far"] = sig4(bits), sig4(math.Exp2(bits))
	}
	if pc := m.stepsC[t-1].Probs; pc != nil {
		verdict := "right"
		if models.Argmax(pc) != zoo.ArchCLabel(all) {
			verdict = "wrong"
			meta["C_why"] = m.cWhy()
		}
		meta["C_output"] = fmt.Sprintf("%s (p = %.3f), %s", zoo.ArchCClasses[models.Argmax(pc)], pc[models.Argmax(pc)], verdict)
	} else {
		r := m.readC[t-1]
		meta["C_output"] = fmt.Sprintf("none until the last step (had the text ended here: %s, p = %.3f)", zoo.ArchCClasses[models.Argmax(r)], r[models.Argmax(r)])
	}
	return sim.Frame{
		Arrays: []sim.Array{sim.Vector("X", st.X), sim.Vector("H", st.H), sim.Vector("P", st.Probs), sim.Vector("P_tau", st.Tau),
			sim.Vector("H_B", m.stepsB[t-1].H), sim.Vector("H_C", m.stepsC[t-1].H)},
		Meta: meta,
	}
}

// TrainStep trains from scratch: the first call replaces the bundled weights by
// fresh ones drawn from the seed; each call is one minibatch of Adam.
//
// Every rnnSampleEvery steps (and after the first) it writes a sample with the weights
// of that moment: the page's own run (the prompt, then n characters at τ, drawn with the
// seed), so the sample after the last step is the text the page then shows. Every
// progress frame carries the newest sample and the step it was drawn at.
func (m *rnnModel) TrainStep() (sim.Frame, error) {
	rng := m.stream(m.seed, func() { m.lm = zoo.NewCharLM(m.seed) })
	loss := m.lm.TrainStep(rng)
	m.steps = nil
	if done := m.trained + 1; done == 1 || done%rnnSampleEvery == 0 {
		m.sample, m.sampleStep = m.written(m.Steps()), done
	}
	return m.progress(loss, map[string]any{"sample": m.sample, "sample_step": m.sampleStep})
}

// cWhy says why C's answer is wrong, from C's readout at every step (its answer had
// the text ended there); "" when the answer is right.
func (m *rnnModel) cWhy() string {
	all := m.inputs()
	T, truth := len(all), zoo.ArchCLabel(all)
	says := func(t int) int { return models.Argmax(m.readC[t-1]) } // C's readout at step t, 1-based
	if says(T) == truth {
		return ""
	}
	text := func(a, b int) string { // x_a … x_b, as shown
		var s strings.Builder
		for _, id := range all[a-1 : b] {
			s.WriteString(shownChar(data.CharVocab[id]))
		}
		return s.String()
	}
	var why string
	if truth == 1 && says(T) == 0 {
		e := lastSea(all) // "sea" ends at step e
		f := e
		for f <= T && says(f) == 1 {
			f++
		}
		if f == e {
			why = fmt.Sprintf("the text says %q at t = %d–%d, but even right after it C's readout is %q", "sea", e-2, e, zoo.ArchCClasses[0])
		} else {
			why = fmt.Sprintf("the text says %q at t = %d–%d and C's readout held %q until t = %d; reading %q at t = %d–%d wiped that memory",
				"sea", e-2, e, zoo.ArchCClasses[1], f-1, text(max(e+1, f-3), f), max(e+1, f-3), f)
		}
	} else {
		f := T
		for f > 1 && says(f-1) == 1 {
			f--
		}
		why = fmt.Sprintf("the text has no %q, yet C's readout says %q from t = %d on, after reading %q", "sea", zoo.ArchCClasses[1], f, text(max(1, f-3), f))
	}
	if n, k := unseen4(all); k > 0 {
		why += fmt.Sprintf("; %d of the text's %d character 4-grams never occur in the training text", k, n)
	}
	if T > zoo.ArchCMaxLen {
		why += fmt.Sprintf(", and it is %d characters long, C trained on at most %d", T, zoo.ArchCMaxLen)
	}
	return why
}

// lastSea is the step (1-based) of the last character of the text's last "sea", or 0.
func lastSea(ids []int) int {
	var s strings.Builder
	for _, id := range ids {
		s.WriteString(data.CharVocab[id])
	}
	if i := strings.LastIndex(s.String(), "sea"); i >= 0 {
		return len([]rune(s.String()[:i])) + 3
	}
	return 0
}

// corpus4 is the set of character 4-grams of the training text.
var corpus4 = sync.OnceValue(func() map[string]bool {
	out := map[string]bool{}
	rs := []rune(data.CharCorpus)
	for i := 0; i+4 <= len(rs); i++ {
		out[string(rs[i:i+4])] = true
	}
	return out
})

// unseen4 is the number n of character 4-grams of the text ids (one per position)
// and the number k of them that never occur in the training text.
func unseen4(ids []int) (n, k int) {
	seen := corpus4()
	for i := 0; i+4 <= len(ids); i++ {
		var g strings.Builder
		for _, id := range ids[i : i+4] {
			g.WriteString(data.CharVocab[id])
		}
		n++
		if !seen[g.String()] {
			k++
		}
	}
	return n, k
}

var rnnLesson = &Lesson{
	Slug:    "rnn",
	Short:   "RNN",
	Section: "4.1",
	Title:   "Recurrent neural networks: unfolding, architectures A, B, C and a character-level language model",
	Summary: "Unfold three small RNNs (architectures A, B and C) over the same text, watch their hidden states step by step, and let the language model write with a temperature you choose.",
	Prose: []string{
		`A recurrent network reads a sequence one element at a time and carries a hidden state \(H_t\) from each step to the next. Unfolding it over the input turns the loop into a chain of copies of the same cell, all sharing the weights \(W_{xh}\), \(W_{hh}\), \(b_h\): that chain is the computational graph in the graph panel, drawn for the text you typed.`,
		`This one is a character-level language model: at every step it reads one character \(X_t\) (a one-hot vector) and gives a probability \(P(x_{t+1} \mid x_1, \dots, x_t) = \mathrm{softmax}(O_t)\) to every character that could come next. It learned from a generated text of about 60 000 characters, sentences about a harbour town by the sea, far more than its few thousand weights can store, so it cannot recite its training text and has to guess. First it reads your prompt; then it writes: each new character is drawn at random and fed back in as the next input.`,
		`Chaining these predictions gives the probability of a whole text, \(P(x_1, \dots, x_T) = P(x_1) \prod_{t=1}^{T-1} P(x_{t+1} \mid x_1, \dots, x_t)\). The first character is typed, so the model scores the other \(T-1\). Training minimises the negative log of that product, the negative log-likelihood \(\ell\), a sum of one term per character; the training loss \(L\) is its mean per character. Divided by \(\ln 2\) that mean becomes <b>bits per character</b>, the average number of yes/no answers the model still needs to pin down each next character, and \(2\) to that power is the <b>perplexity</b>, as if the model hesitated between that many equally likely characters at every step. The facts give all three for the text on the page, and each step's own term.`,
		`Writing does not always sample from \(P\) itself. The temperature \(\tau\) divides the outputs before the softmax, and the next character is drawn from \(\mathrm{softmax}(O_t / \tau)\): at \(\tau = 1\) that is the model's \(P\); below 1 it sharpens it (at 0.1 the model keeps to its favourite phrases and soon repeats itself), above 1 it flattens it (more surprises, more misspelt words). The two tables show both at the current step: the model's \(P\), with the top \(k\), and the distribution the next character is drawn from. The text's bits per character are always scored under \(P\), so text written at a high temperature costs more bits.`,
		`The language model is the lecture's architecture A: hidden state to hidden state, with an output at every step, a <b>many-to-many</b> network with one output per input. Once it has read the prompt it writes on its own from the single hidden state the prompt left, like a <b>one-to-many</b> or <b>vector-to-sequence</b> model that starts from \(H_0\) set to a given vector. Two more small models read the same characters, so the three unfolded graphs can be compared side by side. <b>B</b> is many-to-many too but has no hidden-to-hidden connection: the previous output \(\hat y_{t-1}\), its probabilities for the next character, feeds the next hidden state, \(H_t = \tanh(X_t W_{xh} + \hat y_{t-1} W_{oh} + b_h)\). It can carry forward only what its output shows, so it writes worse than A (the facts about the model give each one's bits per character on its training text), but each step can be trained on its own. That is what <b>teacher forcing</b> exploits: during training the fed-back output is replaced by the right answer from the data, so no gradient has to travel from one step to the one before. For a language model the right previous answer is the character \(X_t\) already being read, so this B instead feeds back its own \(\hat y_{t-1}\) held fixed as an input, which cuts the steps apart in the same way. <b>C</b> has the same recurrence as A but answers once, after the whole sequence, a <b>many-to-one</b> network: \(\hat y = \mathrm{softmax}(H_T W_{hq} + b_q)\). Here it answers a yes/no question about the text, "does it mention the sea?"; before the last step there is no output, though the facts show what C would answer had the text ended there.`,
		`<b>Train from scratch</b> starts the language model A from random weights drawn from the seed and learns the text live; watch the loss fall and, every 50 training steps, a fresh sample written with the weights of that moment turn from noise into words. B and C keep their bundled weights.`,
	},
	Equations: []Equation{
		{TeX: `\htmlClass{sym-H}{H_t} = \tanh(\htmlClass{sym-X}{X_t} W_{xh} + H_{t-1} W_{hh} + b_h)`, Symbols: []Symbol{{ID: "H", Array: "H"}, {ID: "X", Array: "X"}}},
		{TeX: `O_t = H_t W_{hq} + b_q`},
		{TeX: `\text{model: } \htmlClass{sym-P}{P(x_{t+1} \mid x_1, \dots, x_t)} = \mathrm{softmax}(O_t)`, Symbols: []Symbol{{ID: "P", Array: "P"}}},
		{TeX: `\text{sampling: } x_{t+1} \sim \htmlClass{sym-P_tau}{\mathrm{softmax}(O_t / \tau)}`, Symbols: []Symbol{{ID: "P_tau", Array: "P_tau"}}},
		{TeX: `P(x_1, \dots, x_T) = P(x_1) \prod_{t=1}^{T-1} P(x_{t+1} \mid x_1, \dots, x_t)`},
		{TeX: `\ell = -\sum_{t=1}^{T-1} \log P(x_{t+1} \mid x_1, \dots, x_t)`},
		{TeX: `\text{bits per character} = \frac{\ell}{(T-1) \ln 2}`},
		{TeX: `\text{perplexity} = 2^{\text{bits per character}}`},
		{TeX: `\text{B: } \htmlClass{sym-H_B}{H_t} = \tanh(X_t W_{xh} + \hat y_{t-1} W_{oh} + b_h)`, Symbols: []Symbol{{ID: "H_B", Array: "H_B"}}},
		{TeX: `\text{B: } \hat y_t = \mathrm{softmax}(H_t W_{hq} + b_q)`},
		{TeX: `\text{C: } \htmlClass{sym-H_C}{H_t} = \tanh(X_t W_{xh} + H_{t-1} W_{hh} + b_h)`, Symbols: []Symbol{{ID: "H_C", Array: "H_C"}}},
		{TeX: `\text{C: } \hat y = \mathrm{softmax}(H_T W_{hq} + b_q)`},
	},
	Arrays: []Array{
		{Name: "X", Label: `\(X_t\)`, Axes: []Axis{Vocabulary}, PerStep: true, Labels: "vocab"},
		{Name: "H", Label: `\(H_t\)`, Axes: []Axis{Units}, PerStep: true},
		{Name: "H_B", Label: `\(H_t\) (architecture B)`, Axes: []Axis{Units}, PerStep: true},
		{Name: "H_C", Label: `\(H_t\) (architecture C)`, Axes: []Axis{Units}, PerStep: true},
		{Name: "P", Label: `\(P(x_{t+1} \mid x_1, \dots, x_t)\)`, Axes: []Axis{Vocabulary}, PerStep: true, Labels: "vocab"},
		{Name: "P_tau", Label: `\(\mathrm{softmax}(O_t / \tau)\)`, Axes: []Axis{Vocabulary}, PerStep: true, Labels: "vocab"},
	},
	Loss:  "loss_curve",
	Stage: []string{"graph", "tokens"},
	Panels: []Panel{
		{ID: "graph", Static: []string{"archs", "tokens", "prompt_len"}, Meta: []string{"token"}, Kind: Graph, Title: "A: hidden → hidden, an output at every step (many-to-many; the language model)", Arrays: []string{"H"}, Symbol: "H",
			Note: "One copy of the cell per character, every copy with the same weights."},
		{ID: "graph-b", Static: []string{"archs", "tokens", "prompt_len"}, Meta: []string{"token"}, Kind: Graph, Title: `B: output → hidden, \(\hat y_{t-1}\) feeds \(H_t\) (many-to-many)`, Arrays: []string{"H_B"}, Symbol: "H_B",
			Note: "No arrow from H to H: only the output o carries anything to the next step, so each step trains on its own, as with teacher forcing."},
		{ID: "graph-c", Static: []string{"archs", "tokens", "prompt_len"}, Meta: []string{"token"}, Kind: Graph, Title: "C: one output after the whole sequence (many-to-one)", Arrays: []string{"H_C"}, Symbol: "H_C",
			Note: "Does the text mention the sea? The answer exists only at the last step; when it is wrong, the facts say where C lost track."},
		{ID: "tokens", Static: []string{"tokens", "prompt_len"}, Train: []string{"sample", "sample_step"}, Kind: Tokens, Title: "prompt, then generated text (while training: the newest sample)", Arrays: []string{"X"}, Symbol: "X"},
		{ID: "H", Static: []string{"tokens", "prompt_len"}, Kind: Heatmap, Title: `hidden state \(H_t\)`, Arrays: []string{"H"}, Scale: []float64{-1, 1}, Symbol: "H"},
		{ID: "P", Meta: []string{"topk"}, Kind: TopK, Title: `the model's next-character probabilities \(P = \mathrm{softmax}(O_t)\)`, Arrays: []string{"P"}, Scale: []float64{0, 1}, Symbol: "P",
			Note: "The top-k candidates at this step, as the model rates them (τ = 1)."},
		{ID: "P_tau", Kind: TopK, Title: `what writing draws from: \(\mathrm{softmax}(O_t / \tau)\), top 5`, Arrays: []string{"P_tau"}, Scale: []float64{0, 1}, Symbol: "P_tau",
			Note: "The same order as P: below τ = 1 the leader takes more, above it the others catch up. While writing, the next character is drawn from this one."},
	},
	Params: sim.Specs{
		{Name: "prompt", Label: "prompt", Kind: sim.Text, Default: "the sea ", MaxLen: charMaxPrompt, MaxLenWhy: "each character of the prompt is a column of the heatmaps, and 40 still fit the page",
			Help: "Only the characters of the model's training text: " + charAlphabet + "."},
		{Name: "length", Label: "characters to write", Kind: sim.Int, Default: "60", Min: 0, Max: 120, Step: 1},
		{Name: "temperature", Label: "temperature", Kind: sim.Float, Default: "0.8", Min: 0.1, Max: 2, Step: 0.05, Symbol: `\tau`},
		{Name: "topk", Label: "most likely characters shown", Kind: sim.Int, Default: "5", Min: 1, Max: 10, Step: 1, Symbol: "k"},
		seedSpec(1, "Draws the samples, and the random start of training from scratch."),
	},
	Plots: []Plot{
		{Name: "next-char", Title: `\(P(x_{t+1} \mid x_1 \ldots x_t)\) of the character that came next`, XLabel: `time step \(t\)`, YLabel: "probability",
			Series: func(sm sim.Model) []Series {
				m := sm.(*rnnModel)
				all := m.inputs()
				s := Series{Label: "P(next character)"}
				for t, st := range m.run()[:len(all)-1] {
					s.X = append(s.X, float64(t+1))
					s.Y = append(s.Y, st.Probs[all[t+1]])
				}
				return []Series{s}
			}},
	},
	PyTorch: &PyTorch{Note: pyTorchHTML("notes/rnn.html"), Scripts: []string{nnScript, rnnArchScript},
		Companions: []Companion{
			{"arch-b", pyTorchHTML("notes/rnn-arch-b.html")},
			{"arch-c", pyTorchHTML("notes/rnn-arch-c.html")},
		}},
	Build:  buildRNN,
	Facts:  rnnFacts,
	Trains: true,
	// 10000 (sim.MaxTrainSteps): 1.5–7 ms a step on one core (15–70 s, with a sample every 50 steps); the bundled model took charTrainSteps = 6000.
	MaxTrained: 10000,
	Largest:    sim.Values{"prompt": strings.Repeat("the sea ", 5), "length": "120", "topk": "10"},
	// 914 KB measured at 160 steps (a 40-character prompt, 120 written, top 10; P and the
	// sampling distribution at every step), 377 KB at the defaults: the cached frames.
	SessionBytes: 1200 << 10,
	// 99 KB measured (its own language model from the seed and Adam's moments) and a loss curve of 10000 steps.
	TrainedBytes: 480 << 10,
}

// rnnFacts labels the page's facts in the lecture's words.
var rnnFacts = factTable{
	static: []fact{
		{key: "architecture", label: "architecture"},
		{key: "hidden", label: "hidden units h"},
		{key: "params", label: "parameters"},
		{key: "temperature", label: "sampling temperature τ", measured: true},
		{key: "nll", label: `negative log-likelihood \(\ell\) of the text (nats)`, measured: true},
		{key: "bits_per_char", label: "bits per character", measured: true},
		{key: "perplexity", label: "perplexity", measured: true},
		{key: "prompt_len", label: "typed prompt length", keep: true},
		{key: "C_truth", label: "C: the right answer"},
		{key: "C_answer", label: "C: its answer"},
		{key: "A_bits", label: "A: bits per character on its training text", measured: true},
		{key: "B_bits", label: "B: bits per character on its training text", measured: true},
		{key: "weights", label: "weights"},
	},
	step: []fact{
		{key: "phase", label: "phase"},
		{key: "token", label: `input \(x_t\)`, keep: true},
		{key: "next", label: "next character"},
		{key: "next_p", label: `its \(P(x_{t+1} \mid x_1, \dots, x_t)\)`, measured: true},
		{key: "next_bits", label: `its \(-\log_2 P\) (bits)`, measured: true},
		{key: "next_tau", label: `drawn with probability \(\mathrm{softmax}(O_t / \tau)\)`, measured: true},
		{key: "written", label: `written \(x_{t+1}\)`},
		{key: "A_guess", label: `A: its guess \(\hat{y}_t\)`},
		{key: "B_guess", label: "B: its guess"},
		{key: "bits_so_far", label: `bits per character so far`, measured: true},
		{key: "perplexity_so_far", label: "perplexity so far", measured: true},
		{key: "C_output", label: "C: output"},
		{key: "C_why", label: "C: why it is wrong"},
	},
}
