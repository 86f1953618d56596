package lessons

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"

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
// of its training text (data.CharCorpus), which lacks some (the fox cannot be typed),
// space, comma and full stop.
var charAlphabet = func() string {
	var have, lack []string
	for r := 'a'; r <= 'z'; r++ {
		if data.CharID(string(r)) >= 0 {
			have = append(have, string(r))
		} else {
			lack = append(lack, string(r))
		}
	}
	s := "the letters " + strings.Join(have, " ") + ", space, comma and full stop"
	if len(lack) > 0 {
		s += " (no " + strings.Join(lack, ", ") + ")"
	}
	return s
}()

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
	prompt  []int
	n, topK int
	tau     float64
	seed    uint64
	steps   []zoo.CharStep // nil after training changed the weights
	gen     []int

	scratch // training from scratch: the first TrainStep starts a fresh model from seed
}

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
	if m.trained == 0 {
		meta["weights"] = "bundled checkpoint"
	} else {
		meta["weights"] = fmt.Sprintf("trained from scratch for %d steps (seed %d)", m.trained, m.seed)
	}
	return sim.Frame{Meta: meta}
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
	pb := m.stepsB[t-1].Probs
	meta["A_guess"] = fmt.Sprintf("%s (p = %.3f)", shownChar(data.CharVocab[order[0]]), st.Probs[order[0]])
	meta["B_guess"] = fmt.Sprintf("%s (p = %.3f)", shownChar(data.CharVocab[models.Argmax(pb)]), pb[models.Argmax(pb)])
	if pc := m.stepsC[t-1].Probs; pc != nil {
		meta["C_output"] = fmt.Sprintf("%s (p = %.3f)", zoo.ArchCClasses[models.Argmax(pc)], pc[models.Argmax(pc)])
	} else {
		meta["C_output"] = "none until the last step"
	}
	return sim.Frame{
		Arrays: []sim.Array{sim.Vector("X", st.X), sim.Vector("H", st.H), sim.Vector("P", st.Probs),
			sim.Vector("H_B", m.stepsB[t-1].H), sim.Vector("H_C", m.stepsC[t-1].H)},
		Meta: meta,
	}
}

// TrainStep trains from scratch: the first call replaces the bundled weights by
// fresh ones drawn from the seed; each call is one minibatch of Adam.
func (m *rnnModel) TrainStep() (sim.Frame, error) {
	rng := m.stream(m.seed, func() { m.lm = zoo.NewCharLM(m.seed) })
	loss := m.lm.TrainStep(rng)
	m.steps = nil
	return m.progress(loss, nil)
}

var rnnLesson = &Lesson{
	Slug:    "rnn",
	Short:   "RNN",
	Section: "4.1",
	Title:   "Recurrent neural networks: unfolding, architectures A, B, C and a character-level language model",
	Summary: "Unfold three small RNNs (architectures A, B and C) over the same text, watch their hidden states step by step, and let the language model write with a temperature you choose.",
	Prose: []string{
		`A recurrent network reads a sequence one element at a time and carries a hidden state \(H_t\) from each step to the next. Unfolding it over the input turns the loop into a chain of copies of the same cell, all sharing the weights \(W_{xh}\), \(W_{hh}\), \(b_h\): that chain is the computational graph in the graph panel, drawn for the text you typed.`,
		`This one is a character-level language model: at every step it reads one character \(X_t\) (a one-hot vector) and outputs a probability for every possible next character. It was trained on a short bundled text about cats, boats and the sea. First it reads your prompt; then it writes: each new character is drawn from its own prediction and fed back in as the next input.`,
		`The temperature \(\tau\) divides the outputs before the softmax. Below 1 it sharpens the distribution (the model repeats its favourite words), above 1 it flattens it (more surprises, more spelling mistakes). The table shows the top-\(k\) candidates at the current step.`,
		`The language model is the lecture's architecture A: hidden state to hidden state, with an output at every step. Two more small models read the same characters, so the three unfolded graphs can be compared side by side. <b>B</b> has no hidden-to-hidden connection: the previous output \(\hat y_{t-1}\), its probabilities for the next character, feeds the next hidden state, \(H_t = \tanh(X_t W_{xh} + \hat y_{t-1} W_{oh} + b_h)\). It can carry forward only what its output shows, so it writes worse than A (1.18 bits per character on the text against A's 0.09), but each step can be trained on its own. <b>C</b> has the same recurrence as A but answers once, after the whole sequence: \(\hat y = \mathrm{softmax}(H_T W_{hq} + b_q)\). Here it answers a yes/no question about the text, "does it mention the sea?"; before the last step there is no output at all.`,
		`<b>Train from scratch</b> starts the language model A from random weights drawn from the seed and learns the text live; watch the loss fall and the samples turn from noise into words. B and C keep their bundled weights.`,
	},
	Equations: []Equation{
		{TeX: `\htmlClass{sym-H}{H_t} = \tanh(\htmlClass{sym-X}{X_t} W_{xh} + H_{t-1} W_{hh} + b_h)`, Symbols: []Symbol{{ID: "H", Array: "H"}, {ID: "X", Array: "X"}}},
		{TeX: `O_t = H_t W_{hq} + b_q, \qquad \htmlClass{sym-P}{P(x_{t+1} \mid x_1, \dots, x_t)} = \mathrm{softmax}(O_t / \tau)`, Symbols: []Symbol{{ID: "P", Array: "P"}}},
		{TeX: `\text{B: } \htmlClass{sym-H_B}{H_t} = \tanh(X_t W_{xh} + \hat y_{t-1} W_{oh} + b_h), \quad \hat y_t = \mathrm{softmax}(H_t W_{hq} + b_q)`, Symbols: []Symbol{{ID: "H_B", Array: "H_B"}}},
		{TeX: `\text{C: } \htmlClass{sym-H_C}{H_t} = \tanh(X_t W_{xh} + H_{t-1} W_{hh} + b_h), \quad \hat y = \mathrm{softmax}(H_T W_{hq} + b_q)`, Symbols: []Symbol{{ID: "H_C", Array: "H_C"}}},
	},
	Arrays: []Array{
		{Name: "X", Label: `\(X_t\)`, Axes: []Axis{Vocabulary}, PerStep: true, Labels: "vocab"},
		{Name: "H", Label: `\(H_t\)`, Axes: []Axis{Units}, PerStep: true},
		{Name: "H_B", Label: `\(H_t\) (architecture B)`, Axes: []Axis{Units}, PerStep: true},
		{Name: "H_C", Label: `\(H_t\) (architecture C)`, Axes: []Axis{Units}, PerStep: true},
		{Name: "P", Label: `\(\hat{Y}_t\)`, Axes: []Axis{Vocabulary}, PerStep: true, Labels: "vocab"},
	},
	Loss: "loss_curve",
	Panels: []Panel{
		{ID: "graph", Static: []string{"archs", "tokens", "prompt_len"}, Meta: []string{"token"}, Kind: Graph, Title: "A: hidden → hidden, an output at every step (the language model)", Arrays: []string{"H"}, Symbol: "H",
			Note: "One copy of the cell per character, every copy with the same weights."},
		{ID: "graph-b", Static: []string{"archs", "tokens", "prompt_len"}, Meta: []string{"token"}, Kind: Graph, Title: `B: output → hidden, \(\hat y_{t-1}\) feeds \(H_t\)`, Arrays: []string{"H_B"}, Symbol: "H_B",
			Note: "No arrow from H to H: only the output o carries anything to the next step."},
		{ID: "graph-c", Static: []string{"archs", "tokens", "prompt_len"}, Meta: []string{"token"}, Kind: Graph, Title: "C: one output after the whole sequence", Arrays: []string{"H_C"}, Symbol: "H_C",
			Note: "Does the text mention the sea? The answer exists only at the last step."},
		{ID: "tokens", Static: []string{"tokens", "prompt_len"}, Kind: Tokens, Title: "prompt, then generated text", Arrays: []string{"X"}, Symbol: "X"},
		{ID: "H", Static: []string{"tokens", "prompt_len"}, Kind: Heatmap, Title: `hidden state \(H_t\)`, Arrays: []string{"H"}, Scale: []float64{-1, 1}, Symbol: "H"},
		{ID: "P", Meta: []string{"topk"}, Kind: TopK, Title: `next-character probabilities`, Arrays: []string{"P"}, Scale: []float64{0, 1}, Symbol: "P",
			Note: "The top-k candidates at this step; while writing, the next character is drawn from them."},
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
	Build:  buildRNN,
	Facts:  rnnFacts,
	Trains: true,
	// 10000 (sim.MaxTrainSteps): 1.5 ms a step on one core, 15 s; the bundled model took CharTrainSteps = 2000.
	MaxTrained: 10000,
	Largest:    sim.Values{"prompt": strings.Repeat("the sea ", 5), "length": "120", "topk": "10"},
	// 619 KB measured at 160 steps (a 40-character prompt, 120 written, top 10), 247 KB at the defaults: the cached frames.
	SessionBytes: 960 << 10,
	// 83 KB measured (its own language model from the seed and Adam's moments) and a loss curve of 10000 steps.
	TrainedBytes: 480 << 10,
}

// rnnFacts labels the page's facts in the lecture's words.
var rnnFacts = factTable{
	static: []fact{
		{key: "architecture", label: "architecture"},
		{key: "hidden", label: "hidden units h"},
		{key: "params", label: "parameters"},
		{key: "temperature", label: "sampling temperature τ", measured: true},
		{key: "prompt_len", label: "typed prompt length", keep: true},
		{key: "C_truth", label: "C: the right answer"},
		{key: "C_answer", label: "C: its answer"},
		{key: "weights", label: "weights"},
	},
	step: []fact{
		{key: "phase", label: "phase"},
		{key: "token", label: `input \(x_t\)`, keep: true},
		{key: "next", label: "next character"},
		{key: "written", label: `written \(x_{t+1}\)`},
		{key: "A_guess", label: `A: its guess \(\hat{y}_t\)`},
		{key: "B_guess", label: "B: its guess"},
		{key: "C_output", label: "C: output"},
	},
}
