package lessons

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"unroll/data"
	"unroll/zoo"
)

// TestBirnnFrames: step s shows →H_s and ←H_{T−s+1}; the predictions appear when
// the passes have reached the blank.
func TestBirnnFrames(t *testing.T) {
	v := birnnLesson.Params.Defaults()
	v["sentence"] = "i am ___ hungry because i just ate ."
	sm, err := birnnLesson.Build(v)
	if err != nil {
		t.Fatal(err)
	}
	m := sm.(*birnnModel)
	T := m.Steps()
	runs := m.run()
	uniReady, biReady := m.ready()
	if uniReady != 3 || biReady != T-2 {
		t.Fatalf("ready: got %d, %d want 3, %d", uniReady, biReady, T-2)
	}
	for s := 1; s <= T; s++ {
		f := m.At(s)
		arrays := map[string][]float64{}
		for _, a := range f.Arrays {
			arrays[a.Name] = a.Data
		}
		if !slices.Equal(arrays["H_fwd"], runs[1].Fwd[s-1]) || !slices.Equal(arrays["H_bwd"], runs[1].Bwd[T-s]) {
			t.Errorf("step %d: H_fwd or H_bwd is not →H_%d, ←H_%d", s, s, T-s+1)
		}
		if _, ok := arrays["P_uni"]; ok != (s >= uniReady) {
			t.Errorf("step %d: P_uni present = %v want %v", s, ok, s >= uniReady)
		}
		if _, ok := arrays["P_bi"]; ok != (s >= biReady) {
			t.Errorf("step %d: P_bi present = %v want %v", s, ok, s >= biReady)
		}
	}
	if got := m.Static().Meta["answer"]; got != "not" {
		t.Errorf("answer: got %v want not", got)
	}
	if w, _ := topWord(runs[1].Probs); w != "not" {
		t.Errorf("bidirectional prediction: got %s want not", w)
	}
}

func TestBirnnTrainFromScratch(t *testing.T) {
	sm, err := birnnLesson.Build(birnnLesson.Params.Defaults())
	if err != nil {
		t.Fatal(err)
	}
	m := sm.(*birnnModel)
	var first, last float64
	for i := range 300 {
		f, err := m.TrainStep()
		if err != nil {
			t.Fatal(err)
		}
		l := f.Meta["loss"].(float64)
		if i == 0 {
			first = l
		}
		last = l
	}
	if last > first/4 {
		t.Errorf("bidirectional loss after 300 steps: got %v want < %v (a quarter of the first, %v)", last, first/4, first)
	}
	if got := m.bi.Accuracy(data.BlankEvalSet()); got < 0.9 {
		t.Errorf("held-out accuracy after 300 steps: got %v want ≥ 0.9", got)
	}
}

// TestBirnnProseClaims (issue 14): the prose says the bidirectional model is right on
// every held-out sentence and the unidirectional one below the chance level (always
// the commonest answer); the facts carry the numbers it refers to.
func TestBirnnProseClaims(t *testing.T) {
	m, err := birnnLesson.Build(birnnLesson.Params.Defaults())
	if err != nil {
		t.Fatal(err)
	}
	meta := m.Static().Meta
	uni, bi, chance := meta["held_out_accuracy_unidirectional"].(float64), meta["held_out_accuracy_bidirectional"].(float64), meta["held_out_chance"].(float64)
	if bi != 1 || !(uni < chance) {
		t.Errorf("held out: bidirectional %v (the prose says 1), unidirectional %v, chance %v (the prose says below it)", bi, uni, chance)
	}
}

// TestBirnnNextWordPeeks (seed 004: a bidirectional RNN suits encoding, not
// predicting the next token): the prose says the bidirectional next-word model's
// held-out loss is close to zero and far below the unidirectional one's with the
// whole sentence in, and worse than the unidirectional one's from the words so far;
// on the default sentence its whole-sentence guess for x_{t+1} is right at every t.
func TestBirnnNextWordPeeks(t *testing.T) {
	sm, err := birnnLesson.Build(birnnLesson.Params.Defaults())
	if err != nil {
		t.Fatal(err)
	}
	m := sm.(*birnnModel)
	set := data.BlankEvalSet()
	uniFull, uniGen := m.pair.Uni.Score(set, false), m.pair.Uni.Score(set, true)
	biFull, biGen := m.pair.Bi.Score(set, false), m.pair.Bi.Score(set, true)
	if !(biFull.Loss < 0.05) || !(biFull.Loss < uniFull.Loss/10) {
		t.Errorf("whole sentence: bidirectional loss %v, unidirectional %v: want < 0.05 and a tenth", biFull.Loss, uniFull.Loss)
	}
	if !(biGen.Loss > uniGen.Loss) || !(biGen.Accuracy < uniGen.Accuracy) {
		t.Errorf("words so far: bidirectional %+v, unidirectional %+v: want the bidirectional worse", biGen, uniGen)
	}
	meta := m.Static().Meta
	want := fmt.Sprintf("unidirectional %.3f (%.0f%% right), bidirectional %.3f (%.0f%% right)", uniGen.Loss, 100*uniGen.Accuracy, biGen.Loss, 100*biGen.Accuracy)
	if meta["next_word_generating"] != want {
		t.Errorf("next_word_generating: got %v want %v", meta["next_word_generating"], want)
	}
	T := m.Steps()
	wrongPrefix := 0
	for s := 1; s < T; s++ {
		f := m.At(s)
		truth := data.BlankVocab[m.ids[s]]
		if g := f.Meta["next_bi_full"].(string); !strings.HasPrefix(g, truth+" ") {
			t.Errorf("step %d: bidirectional guess with the whole sentence %q, want %q", s, g, truth)
		}
		if g := f.Meta["next_bi_prefix"].(string); !strings.HasPrefix(g, truth+" ") {
			wrongPrefix++
		}
	}
	if wrongPrefix == 0 {
		t.Errorf("the bidirectional model from the words so far guessed every next word of %q", m.text)
	}
	if _, ok := m.At(T).Meta["next_word"]; ok {
		t.Errorf("step T has a next word")
	}
}

// TestBirnnDependencePairs (seed 004: bidirectional RNNs are costly to train, every
// output's gradient runs through the whole sequence): measured on the next-word
// models by changing one word at a time, ŷ_t depends on x_1 … x_t in the
// unidirectional model (T(T+1)/2 pairs) and on every word in the bidirectional one (T²).
func TestBirnnDependencePairs(t *testing.T) {
	for _, text := range []string{birnnDefault, "she is ___ ."} {
		ids, err := data.ParseBlank(text)
		if err != nil {
			t.Fatal(err)
		}
		T := len(ids)
		p, err := zoo.SharedNextWordPair()
		if err != nil {
			t.Fatal(err)
		}
		uni, bi := dependencePairs(p, ids)
		if uni != T*(T+1)/2 || bi != T*T {
			t.Errorf("%q: got %d, %d pairs want %d, %d", text, uni, bi, T*(T+1)/2, T*T)
		}
	}
}

// TestBirnnCellSteps: the facts' 2T and 4T are the cell steps of the page's two
// models on the sentence, forward (one per state the runs hold) and as many back.
func TestBirnnCellSteps(t *testing.T) {
	sm, err := birnnLesson.Build(birnnLesson.Params.Defaults())
	if err != nil {
		t.Fatal(err)
	}
	m := sm.(*birnnModel)
	runs := m.run()
	uni, bi := 2*len(runs[0].Fwd), 2*(len(runs[1].Fwd)+len(runs[1].Bwd))
	T := m.Steps()
	if uni != 2*T || bi != 4*T {
		t.Fatalf("cell steps: %d, %d want 2T = %d, 4T = %d", uni, bi, 2*T, 4*T)
	}
	if want := fmt.Sprintf("unidirectional 2T = %d, bidirectional 4T = %d", uni, bi); m.Static().Meta["cell_steps"] != want {
		t.Errorf("cell_steps: got %v want %v", m.Static().Meta["cell_steps"], want)
	}
}
