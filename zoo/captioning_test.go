package zoo

import (
	"runtime"
	"strconv"
	"strings"
	"testing"

	"unroll/data"
	"unroll/internal/machine"
	"unroll/models"
)

// TestCaptionCheckpoints: each shipped captioner (seed 002's three approaches) is the
// one its recipe trains — retraining from the recorded seed gives the recorded first
// losses step for step (on amd64, where cmd/train recorded them) — and reproduces its
// recorded held-out BLEU and exact match, which are high: the captions are learnt,
// not guessed (the numbers are in docs/lessons.md).
func TestCaptionCheckpoints(t *testing.T) {
	ms, err := SharedCaptioners()
	if err != nil {
		t.Fatal(err)
	}
	test := data.Scenes().Test
	for i, cm := range ms {
		a := models.CaptionApproaches[i]
		if cm.Approach != a || cm.Meta["approach"] != strconv.Itoa(int(a)) || cm.Model.Config.Approach != a {
			t.Fatalf("model %d: approach %v, recorded %q", i, cm.Approach, cm.Meta["approach"])
		}
		s := ScoreCaptions(cm.Model, test)
		machine.CheckRecorded(t, CaptionName(a)+" held-out BLEU", s.BLEU, cm.Meta.Float("held_out_bleu"), machine.RecordedSmooth)
		machine.CheckRecorded(t, CaptionName(a)+" exact match", s.Exact, cm.Meta.Float("held_out_exact"), machine.RecordedCount)
		machine.CheckRecorded(t, CaptionName(a)+" exact match, one shape", s.ExactOne, cm.Meta.Float("held_out_exact_one"), machine.RecordedCount)
		machine.CheckRecorded(t, CaptionName(a)+" exact match, two shapes", s.ExactTwo, cm.Meta.Float("held_out_exact_two"), machine.RecordedCount)
		if s.NOne+s.NTwo != s.N || cm.Meta["held_out_one"] != strconv.Itoa(s.NOne) {
			t.Errorf("%s: %d + %d images by shapes, recorded %s with one shape, %d in all", CaptionName(a), s.NOne, s.NTwo, cm.Meta["held_out_one"], s.N)
		}
		if s.N != len(test) || cm.Meta["held_out_images"] != strconv.Itoa(len(test)) {
			t.Errorf("%s: scored %d images, recorded %s, held-out set %d", CaptionName(a), s.N, cm.Meta["held_out_images"], len(test))
		}
		if s.BLEU < 0.9 || s.Exact < 0.85 {
			t.Errorf("%s: held-out BLEU %v, exact match %v; want ≥ 0.9 and ≥ 0.85", CaptionName(a), s.BLEU, s.Exact)
		}
		head := strings.Split(cm.Meta["loss_head"], ",")
		if len(head) != captionLossHead {
			t.Fatalf("%s: %d recorded first losses, want %d", CaptionName(a), len(head), captionLossHead)
		}
		if runtime.GOARCH != "amd64" {
			t.Logf("retraining is compared step for step on amd64 only (here %s)", runtime.GOARCH)
			continue
		}
		seed, _ := strconv.ParseUint(cm.Meta["seed"], 10, 64)
		if seed != captionSeeds[a] {
			t.Errorf("%s: recorded seed %d, the recipe's %d", CaptionName(a), seed, captionSeeds[a])
		}
		_, curve := trainCaption(a, seed, captionLossHead)
		for k, want := range head {
			if got := fg(curve[k]); got != want {
				t.Fatalf("%s: retrained loss at step %d is %s, recorded %s", CaptionName(a), k+1, got, want)
			}
		}
	}
}

// TestCaptionDecodesTheImage: a bundled captioner's caption changes with the image
// (the decoder reads x), and is the grammar's on a training image of each kind.
func TestCaptionDecodesTheImage(t *testing.T) {
	ms, err := SharedCaptioners()
	if err != nil {
		t.Fatal(err)
	}
	for _, cm := range ms {
		seen := map[string]bool{}
		for _, text := range []string{"red circle 1 1", "blue square 2 2", "green triangle 1 1, yellow circle 3 3", "yellow square 1 2, red triangle 3 2"} {
			s, err := data.ParseScene(text)
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Join(Caption(cm.Model, s), " ")
			seen[got] = true
			if data.SceneHeldOut(s) {
				continue
			}
			if got != s.CaptionText() {
				t.Errorf("%s: %q captioned %q, want %q", CaptionName(cm.Approach), text, got, s.CaptionText())
			}
		}
		if len(seen) < 4 {
			t.Errorf("%s: four images got only %d different captions", CaptionName(cm.Approach), len(seen))
		}
	}
}
