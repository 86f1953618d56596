package zoo

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unroll/internal/machine"

	"unroll/models"
)

func TestTranslatorSourceRejectsBadSentences(t *testing.T) {
	tr := NewTranslator(CorpusTask(), TranslatorConfig{Embed: 4, Hidden: 4, Seed: 1})
	for _, tc := range []struct{ in, want string }{
		{"", "empty"},
		{"   ", "empty"},
		{strings.Repeat("go ", 30), "at most"},
		{"go \xff .", "UTF-8"},
	} {
		if _, _, err := tr.Source(tc.in); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Source(%q): got %v, want an error containing %q", tc.in, err, tc.want)
		}
	}
	ids, toks, err := tr.Source("They are WATCHING.")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(toks, " "); got != "they are watching ." {
		t.Errorf("tokens: got %q, want %q", got, "they are watching .")
	}
	for i, id := range ids {
		if id == models.UnkID {
			t.Errorf("token %q is <unk>, want a corpus word", toks[i])
		}
	}
	if ids, _, _ := tr.Source("they are xylophoning ."); ids[2] != models.UnkID {
		t.Errorf("an unknown word: got id %d, want <unk> %d", ids[2], models.UnkID)
	}
}

func TestDatesTaskRoundTrip(t *testing.T) {
	task := DatesTask()
	for _, p := range task.Test[:20] {
		for _, s := range []string{p.En, p.Fr} {
			if got := task.Join(task.Tokenize(s)); got != strings.ToLower(s) {
				t.Errorf("Join(Tokenize(%q)) = %q, want the lowercased input", s, got)
			}
		}
	}
	tr := NewTranslator(task, TranslatorConfig{Embed: 4, Hidden: 4, Seed: 1})
	for _, p := range task.Test {
		if _, _, err := tr.Source(p.En); err != nil {
			t.Fatalf("test date %q: %v", p.En, err)
		}
		labels, err := tr.Target(p.Fr)
		if err != nil {
			t.Fatalf("test date %q: %v", p.Fr, err)
		}
		if got := tr.Words(labels); got != p.Fr {
			t.Errorf("Words(Target(%q)) = %q", p.Fr, got)
		}
	}
}

// TestShippedTranslatorsMeetTheTargets checks every bundled translator's recorded
// test translations against fresh decodings, their scores against the ones the
// checkpoint records, and the targets.
func TestShippedTranslatorsMeetTheTargets(t *testing.T) {
	for _, spec := range TranslatorSpecs {
		t.Run(spec.Name, func(t *testing.T) {
			t.Parallel()
			tr, meta, err := LoadTranslator(spec.Name)
			if err != nil {
				t.Fatal(err)
			}
			rec, err := RecordedTranslations(spec.Name)
			if err != nil {
				t.Fatal(err)
			}
			if raceEnabled {
				t.Log("-race: not re-decoding the test split (~10× slower); .ci/run does it without -race")
			} else {
				// Exact, on every machine: a translation is a chain of decisions (argmax,
				// beam ranks) that flips only at a near-tie within the last-bit changes of
				// fused arithmetic (~1e-15); none does on arm64 (measured under qemu).
				fresh := TestTranslations{Greedy: tr.Translate(tr.Task.Test, 1), Beam: tr.Translate(tr.Task.Test, RecordedBeam)}
				if !slices.Equal(fresh.Greedy, rec.Greedy) || !slices.Equal(fresh.Beam, rec.Beam) {
					t.Errorf("the recorded test translations differ from a fresh decoding: rerun go run ./cmd/train -only seq2seq")
				}
			}
			greedy, beam := tr.Task.Score(rec.Greedy, tr.Task.Test), tr.Task.Score(rec.Beam, tr.Task.Test)
			for key, got := range map[string]float64{
				"test_bleu_greedy": greedy.BLEU, "test_exact_greedy": greedy.Exact,
				"test_bleu_beam": beam.BLEU, "test_exact_beam": beam.Exact,
			} {
				want, err := strconv.ParseFloat(meta[key], 64)
				if err != nil || !machine.NearRecorded(got, want, machine.RecordedDecimals4) { // cmd/train records 4 decimals
					t.Errorf("%s: got %.4f, the checkpoint records %q", key, got, meta[key])
				}
			}
			t.Logf("greedy BLEU %.4f exact %.4f; beam-%d BLEU %.4f exact %.4f", greedy.BLEU, greedy.Exact, RecordedBeam, beam.BLEU, beam.Exact)
			switch spec.Name {
			case "seq2seq-corpus":
				if greedy.BLEU < 0.6 {
					t.Errorf("greedy corpus BLEU %.4f, want ≥ 0.6", greedy.BLEU)
				}
				if beam.BLEU <= greedy.BLEU {
					t.Errorf("beam BLEU %.4f, want above greedy %.4f", beam.BLEU, greedy.BLEU)
				}
			case "attention-dates":
				if greedy.Exact < 0.95 {
					t.Errorf("exact-match accuracy %.4f, want ≥ 0.95", greedy.Exact)
				}
			}
		})
	}
}

func BenchmarkTranslatorTrainStep(b *testing.B) {
	spec, _ := FindTranslatorSpec("seq2seq-corpus")
	tr := spec.New()
	opt := models.NewAdam(TranslatorLR)
	rng := rand.New(rand.NewPCG(1, 1))
	for b.Loop() {
		tr.TrainStep(opt, rng)
	}
}

// TestTranslatorTrainStepMatchesStepByStep trains each GRU translator for a few
// minibatches by TrainStep (the fused pass of models.EncoderDecoder.LossAndGrad)
// and a copy by the step-by-step pass (LossAndGradSteps, then the same clipping and
// Adam) on the same minibatches, and checks that the losses and, at the end, every
// weight agree to 1e-9.
func TestTranslatorTrainStepMatchesStepByStep(t *testing.T) {
	const steps = 10
	for _, name := range []string{"seq2seq-corpus", "seq2seq-dates"} {
		t.Run(name, func(t *testing.T) {
			spec, _ := FindTranslatorSpec(name)
			fused, ref := spec.New(), spec.New()
			optF, optR := models.NewAdam(TranslatorLR), models.NewAdam(TranslatorLR)
			rngF, rngR := rand.New(rand.NewPCG(5, 5)), rand.New(rand.NewPCG(5, 5))
			pairs := ref.Task.trainingIDs()
			for k := range steps {
				lossF := fused.TrainStep(optF, rngF)
				src, tgt := make([][]int, translatorBatch), make([][]int, translatorBatch)
				for i := range src {
					p := pairs[rngR.IntN(len(pairs))]
					src[i], tgt[i] = p[0], p[1]
				}
				b, err := models.NewBatch(src, tgt)
				if err != nil {
					t.Fatal(err)
				}
				ref.Params().ZeroGrad()
				lossR := ref.Model.LossAndGradSteps(b)
				models.ClipGradNorm(ref.Params(), translatorClip)
				optR.Step(ref.Params())
				if math.Abs(lossF-lossR) > 1e-9 {
					t.Fatalf("step %d: loss %.15g, step by step %.15g", k+1, lossF, lossR)
				}
			}
			worst := 0.0
			for i, p := range fused.Params() {
				want := ref.Params()[i].Value.RawMatrix()
				for j, v := range p.Value.RawMatrix().Data {
					worst = max(worst, math.Abs(v-want.Data[j]))
				}
			}
			if worst > 1e-9 {
				t.Errorf("after %d steps the weights differ by up to %.3g, want at most 1e-9", steps, worst)
			}
			t.Logf("after %d steps the weights differ by at most %.3g", steps, worst)
		})
	}
}
