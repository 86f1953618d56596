package lessons

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"unroll/models"
	"unroll/sim"
	"unroll/zoo"
)

// mtBatchOf is the minibatch of the mt-data page's last stage as a models.Batch: X
// and Y as the page shows them, padded to T, with their valid lengths.
func mtBatchOf(t *testing.T, m *mtDataModel) models.Batch {
	t.Helper()
	arr := map[string]sim.Array{}
	for _, a := range m.At(mtStages).Arrays {
		arr[a.Name] = a
	}
	rows := func(name string) [][]int {
		a := arr[name]
		out := make([][]int, a.Shape[0])
		for i := range out {
			for _, v := range a.Data[i*a.Shape[1] : (i+1)*a.Shape[1]] {
				out[i] = append(out[i], int(v))
			}
		}
		return out
	}
	lens := func(name string) []int {
		var out []int
		for _, v := range arr[name].Data {
			out = append(out, int(v))
		}
		return out
	}
	return models.Batch{Src: rows("X"), SrcLen: lens("X_valid_len"), Tgt: rows("Y"), TgtLen: lens("Y_valid_len")}
}

// TestMTDataLossIsMaskedMean (seed 004: masks filter out irrelevant computations
// such as the loss; seed 000: the mask of the padded labels): the minibatch the page
// builds, scored by the bundled translator, has the loss of the page's equation,
// Σᵢ Σₜ m_{i,t} ℓ_{i,t} / Σᵢ Σₜ m_{i,t}, recomputed here sentence by sentence from
// teacher-forced traces; it is not the mean of the sentences' means (the prose says
// so); and the same pairs padded only to their longest sentence, as the translators
// train, give the same loss (the prose: padding changes nothing else).
func TestMTDataLossIsMaskedMean(t *testing.T) {
	tr, _, err := zoo.SharedTranslator(seq2seqName)
	if err != nil {
		t.Fatal(err)
	}
	for _, steps := range []string{"15", "6"} { // 6 truncates some of the 8 pairs
		m := buildMT(t, map[string]string{"min_freq": "1", "num_steps": steps, "batch_size": "8", "seed": "3"})
		if !slices.Equal(m.vs.Tokens(seqIDs(m.vs.Len())), tr.Src.Tokens(seqIDs(tr.Src.Len()))) ||
			!slices.Equal(m.vt.Tokens(seqIDs(m.vt.Len())), tr.Tgt.Tokens(seqIDs(tr.Tgt.Len()))) {
			t.Fatal("the page's vocabularies at min_freq 1 are not the translator's")
		}
		b := mtBatchOf(t, m)
		got := tr.Model.Loss(b)
		sum, tokens, meanOfMeans := 0.0, 0, 0.0
		var unpadSrc, unpadTgt [][]int
		for i := range b.Src {
			src, labels := b.Src[i][:b.SrcLen[i]], b.Tgt[i][:b.TgtLen[i]]
			tf, err := tr.Model.TeacherForced(src, labels)
			if err != nil {
				t.Fatal(err)
			}
			own := 0.0
			for k, st := range tf.Steps {
				if want := -math.Log(st.Probs[labels[k]]); math.Abs(st.Loss-want) > 1e-9 {
					t.Fatalf("row %d t=%d: ℓ %v want −log P(y_t) = %v", i+1, k+1, st.Loss, want)
				}
				own += st.Loss
			}
			sum, tokens = sum+own, tokens+len(labels)
			meanOfMeans += own / float64(len(labels)) / float64(len(b.Src))
			unpadSrc, unpadTgt = append(unpadSrc, src), append(unpadTgt, labels)
		}
		want := sum / float64(tokens)
		if math.Abs(got-want) > 1e-12 {
			t.Errorf("T=%s: the model's minibatch loss %.15g, the equation's %.15g", steps, got, want)
		}
		if math.Abs(meanOfMeans-want) < 1e-4 {
			t.Errorf("T=%s: the mean of the sentences' means %.6g equals the masked mean %.6g: the example shows no difference", steps, meanOfMeans, want)
		}
		longest, err := models.NewBatch(unpadSrc, unpadTgt)
		if err != nil {
			t.Fatal(err)
		}
		if l := tr.Model.Loss(longest); math.Abs(l-got) > 1e-12 {
			t.Errorf("T=%s: padded to the longest sentence the loss is %.15g, padded to T %.15g", steps, l, got)
		}
		t.Logf("T=%s: masked mean %.6f, mean of the sentences' means %.6f", steps, want, meanOfMeans)
	}
	eq := mtDataLesson.Equations[1].TeX
	for _, part := range []string{`\sum_{i=1}^{B} \sum_{t=1}^{T} m_{i,t}\, \ell_{i,t}`, `{\sum_{i=1}^{B} \sum_{t=1}^{T} m_{i,t}}`} {
		if !strings.Contains(eq, part) {
			t.Errorf("the loss equation %q lacks %q", eq, part)
		}
	}
	prose := strings.Join(mtDataLesson.Prose, " ")
	if !strings.Contains(prose, "not the mean of each sentence's mean") {
		t.Error("the prose does not say the loss is not the mean of the sentences' means")
	}
	// the translators' differences from the lecture pipeline, as the prose states them
	ids, toks, err := tr.Source("they are watching .")
	if err != nil || len(ids) != len(toks) || slices.Contains(ids, models.EosID) {
		t.Errorf("the translator's source %v for %q: want the tokens' ids without <eos>", ids, toks)
	}
	if !strings.Contains(prose, fmt.Sprintf("each minibatch of %d pairs is padded to its own longest sentence", zoo.TranslatorBatch)) {
		t.Errorf("the prose does not give the translators' minibatch of %d pairs", zoo.TranslatorBatch)
	}
}

// seqIDs is 0, 1, …, n−1.
func seqIDs(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// TestMTDataNotesIdeas (seeds 000 and 004, "machine translation"): the page names
// what the notes' section says of the task: source and target languages,
// variable-length input and output (sequence transduction), statistical against
// neural machine translation with the translation and language models, and a
// dataset of pairs rather than one language's text; and the page's corpus is such
// pairs: its pair 0 has an English source and a French target of different lengths.
func TestMTDataNotesIdeas(t *testing.T) {
	prose := strings.Join(mtDataLesson.Prose, " ")
	for _, idea := range []string{"source language", "target language", "sequence transduction", "1940s", "statistical", "neural", "translation model", "language model", "pairs"} {
		if !strings.Contains(prose, idea) {
			t.Errorf("the prose does not mention %q", idea)
		}
	}
	m := buildMT(t, nil)
	if len(m.src.Tokens) == len(m.tgt.Tokens) {
		t.Errorf("pair 0: %q → %q have the same length; the prose says lengths differ", m.src.Tokens, m.tgt.Tokens)
	}
}
