package lessons

import (
	"bytes"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"unroll/internal/machine"
	"unroll/models"
	"unroll/sim"
)

func seq2seqValues(changes map[string]string) sim.Values { return lessonValues(seq2seqLesson, changes) }

func buildSeq2SeqModel(t testing.TB, changes map[string]string) *seq2seqModel {
	t.Helper()
	return buildLesson[*seq2seqModel](t, seq2seqLesson, changes)
}

// startOf is the start parameter that gives weights w.
func startOf(w string) string {
	if w == weightsUntrained {
		return startScratch
	}
	return startCheckpoint
}

// decoderFrame is the frame of decoder step tp.
func (m *seq2seqModel) decoderFrame(tp int) sim.Frame { return m.At(m.encSteps() + 1 + tp) }

// TestSeq2SeqTeacherForcingShift: the decoder input under teacher forcing is <bos>
// followed by the padded labels shifted right (lecture 4.6: "<bos> ils regardent ."
// → "ils regardent . <eos>"), the labels are padded to L, and the mask is 1 on the
// valid length.
func TestSeq2SeqTeacherForcingShift(t *testing.T) {
	cases := []struct {
		name    string
		changes map[string]string
		labels  []string
		mask    []float64
	}{
		{"lecture pair", map[string]string{"reference": "Ils regardent ."}, []string{"ils", "regardent", ".", "<eos>", "<pad>", "<pad>", "<pad>", "<pad>"}, []float64{1, 1, 1, 1, 0, 0, 0, 0}},
		{"no padding", map[string]string{"reference": "Ils regardent .", "pad_to": "4"}, []string{"ils", "regardent", ".", "<eos>"}, []float64{1, 1, 1, 1}},
		{"go", map[string]string{"source": "Go .", "reference": "Va !", "pad_to": "5"}, []string{"va", "!", "<eos>", "<pad>", "<pad>"}, []float64{1, 1, 1, 0, 0}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := buildSeq2SeqModel(t, c.changes)
			if got := m.tr.Tgt.Tokens(m.padded); !slices.Equal(got, c.labels) {
				t.Fatalf("padded labels: got %q want %q", got, c.labels)
			}
			if !slices.Equal(m.mask, c.mask) {
				t.Errorf("mask: got %v want %v", m.mask, c.mask)
			}
			if got := m.Static().Meta["mask"]; !reflect.DeepEqual(got, c.mask) {
				t.Errorf("static mask: got %v want %v", got, c.mask)
			}
			prev := "<bos>"
			for tp := 1; tp <= len(c.labels); tp++ {
				f := m.decoderFrame(tp)
				if f.Meta["teacher_input"] != prev || f.Meta["label"] != c.labels[tp-1] || f.Meta["mask"] != c.mask[tp-1] {
					t.Errorf("t'=%d: got input %v label %v mask %v want %q %q %v", tp, f.Meta["teacher_input"], f.Meta["label"], f.Meta["mask"], prev, c.labels[tp-1], c.mask[tp-1])
				}
				prev = c.labels[tp-1]
			}
			tab := m.Static().Meta["padding"].(table)
			for i, cell := range tab.Rows[2].Cells {
				want := "<bos>"
				if i > 0 {
					want = c.labels[i-1]
				}
				if cell.Text != want {
					t.Errorf("table decoder input %d: got %q want %q", i+1, cell.Text, want)
				}
			}
		})
	}
}

// TestSeq2SeqMaskZerosPadding: at padded steps the raw loss −log P(<pad>) is large
// and the mask makes it 0; the masked mean over the page's steps equals the model's
// training loss on the unpadded pair.
func TestSeq2SeqMaskZerosPadding(t *testing.T) {
	for _, w := range []string{weightsTrained, weightsUntrained} {
		m := buildSeq2SeqModel(t, map[string]string{"reference": "Ils regardent .", "start": startOf(w)})
		tf, _ := m.traces()
		for tp := 1; tp <= len(m.padded); tp++ {
			f := m.decoderFrame(tp)
			loss, masked := arrayOf(f, stepLossArray)[0], arrayOf(f, maskedLossArray)[0]
			want := -math.Log(tf.Steps[tp-1].Probs[m.padded[tp-1]])
			if math.Abs(loss-want) > 1e-9*max(1, want) {
				t.Errorf("%s t'=%d: loss got %v want −log P(label) = %v", w, tp, loss, want)
			}
			if m.mask[tp-1] == 0 && (masked != 0 || loss <= 0) {
				t.Errorf("%s t'=%d (padding): got loss %v masked %v want loss > 0 and masked 0", w, tp, loss, masked)
			}
			if m.mask[tp-1] == 1 && masked != loss {
				t.Errorf("%s t'=%d: masked %v want the loss %v", w, tp, masked, loss)
			}
		}
		b, err := models.NewBatch([][]int{m.src}, [][]int{m.labels})
		if err != nil {
			t.Fatal(err)
		}
		tr, err := m.ownWeights() // the weights the page was built with (an untrained page keeps none)
		if err != nil {
			t.Fatal(err)
		}
		want := tr.Model.Loss(b)
		if got := maskedMean(tf, m.mask); math.Abs(got-want) > 1e-9 {
			t.Errorf("%s: masked mean %v, want the training loss %v", w, got, want)
		}
	}
}

// TestSeq2SeqDivergence: free running leaves the reference at the first differing
// step; before it both runs have the same history, so the same distribution.
func TestSeq2SeqDivergence(t *testing.T) {
	trace := func(outs ...int) *models.DecodeTrace {
		tr := &models.DecodeTrace{}
		for _, o := range outs {
			tr.Steps = append(tr.Steps, models.DecodeStep{Output: o})
		}
		return tr
	}
	for _, c := range []struct {
		name   string
		fr     *models.DecodeTrace
		labels []int
		want   int
	}{
		{"same", trace(5, 6, 3), []int{5, 6, 3}, 0},
		{"first", trace(7, 6, 3), []int{5, 6, 3}, 1},
		{"middle", trace(5, 7, 3), []int{5, 6, 3}, 2},
		{"stops early", trace(5, 3), []int{5, 6, 3}, 2},
		{"runs out", trace(5), []int{5, 6, 3}, 2},
	} {
		if got := Divergence(c.fr, c.labels); got != c.want {
			t.Errorf("%s: got %d want %d", c.name, got, c.want)
		}
	}
	for _, c := range []struct {
		reference string
		want      int
	}{
		{"Elles regardent .", 1},       // the default: the model writes "ils"
		{"Ils regardent .", 0},         // the model's own translation
		{"Ils regardent la télé .", 3}, // it writes "." where the reference goes on
	} {
		m := buildSeq2SeqModel(t, map[string]string{"reference": c.reference})
		_, fr := m.traces()
		d := Divergence(fr, m.labels)
		if d != c.want {
			t.Errorf("%q: divergence at t'=%d want %d (free running wrote %q)", c.reference, d, c.want, m.tr.Words(fr.Outputs()))
		}
		for tp := 1; tp <= len(m.labels); tp++ {
			f := m.decoderFrame(tp)
			if here, _ := f.Meta["diverges_here"].(bool); here != (tp == d) {
				t.Errorf("%q t'=%d: diverges_here %v", c.reference, tp, here)
			}
			if tp <= d || d == 0 {
				if !reflect.DeepEqual(f.Meta["topk"], f.Meta["free_topk"]) && f.Meta["free_topk"] != nil {
					t.Errorf("%q t'=%d: before the divergence the top-k lists differ: %v vs %v", c.reference, tp, f.Meta["topk"], f.Meta["free_topk"])
				}
			}
		}
	}
}

// TestSeq2SeqBadInput: every bad source, reference or length is refused with a
// sentence naming the problem.
func TestSeq2SeqBadInput(t *testing.T) {
	for _, c := range []struct {
		changes map[string]string
		want    string
	}{
		{map[string]string{"source": ""}, "sentence is empty"},
		{map[string]string{"reference": "  "}, "reference is empty"},
		{map[string]string{"source": strings.Repeat("go ", 25)}, "at most"},
		{map[string]string{"reference": strings.Repeat("va ", 25)}, "at most"},
		{map[string]string{"reference": "ils regardent la télé tous les soirs .", "pad_to": "5"}, `"pad to"`},
	} {
		_, err := buildSeq2Seq(seq2seqValues(c.changes))
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "lessons:") || strings.Contains(err.Error(), "models:") {
			t.Errorf("%v: got %v want a sentence containing %q", c.changes, err, c.want)
		}
	}
}

func TestSeq2SeqDeterminism(t *testing.T) {
	for _, w := range []string{weightsTrained, weightsUntrained} {
		v := seq2seqValues(map[string]string{"start": startOf(w), "seed": "7"})
		a, _ := buildSeq2Seq(v)
		b, _ := buildSeq2Seq(v)
		if !reflect.DeepEqual(a.Static(), b.Static()) {
			t.Fatalf("%s: static differs", w)
		}
		for s := 1; s <= a.Steps(); s++ {
			if !reflect.DeepEqual(a.At(s), b.At(s)) {
				t.Fatalf("%s step %d: two builds differ", w, s)
			}
		}
		ta, tb := a.(sim.Trainer), b.(sim.Trainer)
		for range 3 {
			fa, _ := ta.TrainStep()
			fb, _ := tb.TrainStep()
			if !reflect.DeepEqual(fa, fb) {
				t.Fatalf("%s: training progress differs", w)
			}
		}
	}
}

// TestSeq2SeqTrainingUpdatesThePage trains through a sim.Run as the page does: the
// progress carries the loss curve and held-out BLEU, and the snapshot after training
// shows the trained model (steps, samples, frames from the new weights).
func TestSeq2SeqTrainingUpdatesThePage(t *testing.T) {
	run, err := sim.NewRun(seq2seqLesson.Params, seq2seqLesson.Model, seq2seqValues(map[string]string{"start": startScratch}))
	if err != nil {
		t.Fatal(err)
	}
	run.Seek(run.Steps())
	before := unlabelled(run.Model()).(*seq2seqModel).decoderFrame(1).Meta["loss"]
	if _, err := run.Apply(sim.Command{Type: sim.TrainCommand, Steps: seq2seqEvalEvery}); err != nil {
		t.Fatal(err)
	}
	var last []sim.Encoded
	for run.Training() {
		if out := run.Continue(); out != nil {
			last = out
		}
	}
	if len(last) != 2 || last[0].Type != sim.TrainMessage || last[1].Type != sim.SnapshotMessage {
		t.Fatalf("the last training messages: got %d, want progress then a snapshot", len(last))
	}
	for _, want := range []string{`"loss_curve"`, `"held_out_bleu"`, `"samples"`, fmt.Sprintf(`"trained_steps":%d`, seq2seqEvalEvery)} {
		if !bytes.Contains(last[0].Data, []byte(want)) {
			t.Errorf("progress lacks %s", want)
		}
	}
	for _, want := range []string{fmt.Sprintf(`"label":"trained steps","value":%d`, seq2seqEvalEvery), "trained from scratch here", `"bleu_curve":[[0,0],[25,`} {
		if !bytes.Contains(last[1].Data, []byte(want)) {
			t.Errorf("the snapshot after training lacks %s", want)
		}
	}
	m := unlabelled(run.Model()).(*seq2seqModel)
	if after := m.decoderFrame(1).Meta["loss"]; after == before {
		t.Errorf("the frames still show the untrained loss %v", before)
	}
}

// TestSeq2SeqSnapshotScoresTheFinalWeights: training that stops between two
// scorings (every seq2seqEvalEvery steps) still ends with a snapshot whose BLEU
// curve, samples and step count describe the final weights.
func TestSeq2SeqSnapshotScoresTheFinalWeights(t *testing.T) {
	run, err := sim.NewRun(seq2seqLesson.Params, seq2seqLesson.Model, seq2seqValues(map[string]string{"start": startScratch}))
	if err != nil {
		t.Fatal(err)
	}
	const steps = 7
	if _, err := run.Apply(sim.Command{Type: sim.TrainCommand, Steps: steps}); err != nil {
		t.Fatal(err)
	}
	var last []sim.Encoded
	for run.Training() {
		if out := run.Continue(); out != nil {
			last = out
		}
	}
	snap := last[len(last)-1]
	for _, want := range []string{fmt.Sprintf(`"label":"trained steps","value":%d`, steps), fmt.Sprintf(`"bleu_curve":[[0,0],[%d,`, steps)} {
		if !bytes.Contains(snap.Data, []byte(want)) {
			t.Errorf("the snapshot after %d steps lacks %s", steps, want)
		}
	}
}

// TestSeq2SeqLearnsFromScratch is the target as the page meets it: from
// untrained weights (the default seed), training step by step with the page's
// held-out scoring, greedy BLEU on the scored test pairs passes 0.3 within 60 s.
func TestSeq2SeqLearnsFromScratch(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("trains a few hundred minibatches: run without -race and -short")
	}
	machine.SkipIfEmulated(t, "a 60 s wall-clock budget")
	m := buildSeq2SeqModel(t, map[string]string{"start": startScratch})
	const budget = 60 * time.Second
	start := time.Now()
	for m.static["held_out_bleu"].(float64) < 0.3 {
		if time.Since(start) > budget {
			t.Fatalf("held-out BLEU %v after %d steps and %v, want ≥ 0.3 within %v", m.static["held_out_bleu"], m.trained, time.Since(start), budget)
		}
		if _, err := m.TrainStep(); err != nil {
			t.Fatal(err)
		}
	}
	elapsed := time.Since(start)
	full := m.tr.Evaluate(m.tr.Task.Test, 1)
	t.Logf("held-out BLEU %v on %d test pairs after %d steps in %v (whole test split: %.4f)", m.static["held_out_bleu"], seq2seqEvalPairs, m.trained, elapsed.Round(time.Millisecond), full.BLEU)
}

// TestSeq2SeqContextAtEveryDecoderStep: both runs read c at every decoder step, so c
// (and h = h_T) are in every decoder step's frame, and s_t' has its own panel.
func TestSeq2SeqContextAtEveryDecoderStep(t *testing.T) {
	m := buildSeq2SeqModel(t, nil)
	T := m.encSteps()
	hT := arrayOf(m.At(T), "h")
	for s := T + 1; s <= m.Steps(); s++ {
		f := m.At(s)
		if got := arrayOf(f, "c"); !slices.Equal(got, hT) {
			t.Errorf("step %d: c = %.3v, want c = h_T at every decoder step", s, got)
		}
		if got := arrayOf(f, "h"); !slices.Equal(got, hT) {
			t.Errorf("step %d: h = %.3v, want h_T", s, got)
		}
	}
	var sPanel bool
	for _, p := range seq2seqLesson.Panels {
		sPanel = sPanel || p.Symbol == "s" && slices.Contains(p.Arrays, "s")
	}
	if !sPanel {
		t.Errorf("no panel shows the symbol s")
	}
}

// BenchmarkSeq2SeqStepFrame is one page step from scratch: build the model for the
// default pair (a copy of the checkpoint, both decoder runs, the held-out score) and
// compute a decoder step's frame.
func BenchmarkSeq2SeqStepFrame(b *testing.B) {
	v := seq2seqLesson.Params.Defaults()
	for b.Loop() {
		m, err := buildSeq2Seq(v)
		if err != nil {
			b.Fatal(err)
		}
		m.At(m.Steps() - 1)
	}
}

// BenchmarkSeq2SeqFrame is one frame of a built model after its weights changed
// (both decoder runs recomputed).
func BenchmarkSeq2SeqFrame(b *testing.B) {
	m := buildSeq2SeqModel(b, nil)
	for b.Loop() {
		m.tf, m.fr = nil, nil
		m.At(m.Steps() - 1)
	}
}

// BenchmarkSeq2SeqTrainStep is one live training step with its share of the
// held-out scoring (every seq2seqEvalEvery steps).
func BenchmarkSeq2SeqTrainStep(b *testing.B) {
	m := buildSeq2SeqModel(b, map[string]string{"start": startScratch})
	for b.Loop() {
		if _, err := m.TrainStep(); err != nil {
			b.Fatal(err)
		}
	}
}
