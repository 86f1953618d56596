package lessons

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"

	"unroll/data"
	"unroll/sim"
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
