package lessons

import (
	"fmt"
	"strings"
	"testing"

	"unroll/zoo"
)

// TestSeq2SeqNotation: the seq2seq page and the mt-data page write padding the same
// way: T (T′ for the decoder's labels) is the padded length and L the valid length,
// and the mask is 1 for steps up to L; the loss 𝓛 is not written L.
func TestSeq2SeqNotation(t *testing.T) {
	spec := func(l *Lesson, name string) string {
		for _, p := range l.Params {
			if p.Name == name {
				return p.Symbol
			}
		}
		t.Fatalf("%s has no parameter %s", l.Slug, name)
		return ""
	}
	if got := spec(seq2seqLesson, "pad_to"); got != "T'" {
		t.Errorf("seq2seq pad_to symbol %q, want T'", got)
	}
	if got := spec(mtDataLesson, "num_steps"); got != "T" {
		t.Errorf("mt-data num_steps symbol %q, want T", got)
	}
	var lossEq string
	for _, e := range seq2seqLesson.Equations {
		if strings.HasPrefix(e.TeX, `\mathcal{L}`) {
			lossEq = e.TeX
		}
	}
	for _, part := range []string{`\sum_{t'=1}^{T'} m_{t'}\, \ell_{t'}`, `t' \le L`} {
		if !strings.Contains(lossEq, part) {
			t.Errorf("seq2seq loss equation %q lacks %q", lossEq, part)
		}
	}
	if !strings.Contains(mtDataLesson.Equations[1].TeX, `t \le L`) {
		t.Errorf("mt-data mask equation %q: want m_t = 1 for t ≤ L", mtDataLesson.Equations[1].TeX)
	}
	for _, f := range seq2seqFacts.static {
		if strings.Contains(f.label, `\(L\)`) && f.key != "valid_length" || strings.HasSuffix(f.label, " L") {
			t.Errorf("fact %s is labelled %q: L is the valid length", f.key, f.label)
		}
	}
	m := buildSeq2SeqModel(t, nil)
	if got := m.paddingTable().Title; !strings.Contains(got, fmt.Sprintf("T′ = %d", len(m.padded))) || !strings.Contains(got, fmt.Sprintf("L = %d", len(m.labels))) {
		t.Errorf("padding table title %q", got)
	}
}

// TestSeq2SeqNotesIdeas (seeds 000 and 004, "sequence to sequence learning"): the
// page names the seq2seq papers, the two ways c can reach the decoder (only its
// initial state, or also its input at every step, which TestSeq2SeqContextAtEveryDecoderStep
// shows this model does) and what BLEU measures; the training settings the prose
// gives are the code's; and with the bundled weights the loss at every padded step
// is larger than at any valid step, as the prose says.
func TestSeq2SeqNotesIdeas(t *testing.T) {
	prose := strings.Join(seq2seqLesson.Prose, " ")
	for _, idea := range []string{"Sutskever et al. 2014", "Cho et al. 2014", "initial state", "at every step", `\(n\)-grams`, "shorter than the reference",
		fmt.Sprintf("learning rate %g from scratch", seq2seqScratchLR), fmt.Sprintf("%g when continuing", seq2seqContinueLR), fmt.Sprintf("%g would undo", zoo.TranslatorLR),
		fmt.Sprintf("minibatches of %d pairs", zoo.TranslatorBatch), fmt.Sprintf("Every %d steps", seq2seqEvalEvery), fmt.Sprintf("translates %d held-out", seq2seqEvalPairs)} {
		if !strings.Contains(prose, idea) {
			t.Errorf("the prose does not say %q", idea)
		}
	}
	for _, p := range seq2seqLesson.Panels {
		if p.ID == "samples" && !strings.Contains(p.Note, fmt.Sprintf("%d held-out test pairs, rescored every %d training steps", seq2seqEvalPairs, seq2seqEvalEvery)) {
			t.Errorf("the samples panel's note %q does not give the code's numbers", p.Note)
		}
	}
	m := buildSeq2SeqModel(t, nil)
	tr, meta, err := zoo.SharedTranslator(seq2seqName)
	if err != nil {
		t.Fatal(err)
	}
	if st := m.Static().Meta; st["checkpoint_bleu"] != zoo.Meta(meta).Float("test_bleu_greedy") || len(tr.Task.Test) <= seq2seqEvalPairs {
		t.Errorf("checkpoint BLEU %v, recorded on the %d test pairs %v", st["checkpoint_bleu"], len(tr.Task.Test), meta["test_bleu_greedy"])
	}
	for _, f := range seq2seqFacts.static {
		if f.key == "checkpoint_bleu" && !strings.Contains(f.label, "whole test split") {
			t.Errorf("the label %q does not say the bundled weights' BLEU is on the whole test split (the live one is on %d pairs)", f.label, seq2seqEvalPairs)
		}
	}
	for _, ref := range []string{"Elles regardent .", "Ils regardent .", "Nous sommes calmes ."} {
		m := buildSeq2SeqModel(t, map[string]string{"reference": ref})
		tf, _ := m.traces()
		maxValid, minPad := 0.0, 1e300
		for i, st := range tf.Steps {
			if m.mask[i] == 1 {
				maxValid = max(maxValid, st.Loss)
			} else {
				minPad = min(minPad, st.Loss)
			}
		}
		if !(minPad > maxValid) {
			t.Errorf("%q: smallest loss at padding %.3g, largest at a valid step %.3g; the prose says padding's is larger", ref, minPad, maxValid)
		}
		t.Logf("%q: valid steps ℓ ≤ %.3g, padded steps ℓ ≥ %.3g", ref, maxValid, minPad)
	}
}
