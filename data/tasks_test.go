package data

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestTaskTargets(t *testing.T) {
	cases := []struct {
		task, input string
		want        []int
	}{
		{"checksum", "2 0 2", []int{-1, 0, 1}},
		{"checksum", "1,1,3,1", []int{-1, 1, 0, 1}},
		{"skip", "2 _ 1 _ _", []int{2, 2, 1, 1, 1}},
		{"skip", "0", []int{0}},
		{"reset", "3 1 | 0 3 |", []int{2, 1, 1, 0, 1, 1}},
		{"reset", "0 1 2", []int{0, 0, 0}},
		{"reset", "2 3 0 1 1", []int{2, 2, 2, 1, 0}},
		{"reset", "3 3 | 1", []int{2, 2, 1, 0}},
	}
	for _, c := range cases {
		task, _ := FindTask(c.task)
		ids, err := task.Parse(c.input)
		if err != nil {
			t.Fatalf("%s %q: %v", c.task, c.input, err)
		}
		if got := task.Targets(ids); !slices.Equal(got, c.want) {
			t.Errorf("%s %q: got targets %v want %v", c.task, c.input, got, c.want)
		}
	}
}

func TestTaskGenerate(t *testing.T) {
	for _, task := range Tasks {
		a := rand.New(rand.NewPCG(1, 1))
		b := rand.New(rand.NewPCG(1, 1))
		classSeen := make([]int, len(task.Classes))
		for range 200 {
			ids, ys := task.Batch(a, 4)
			ids2, _ := task.Batch(b, 4)
			for i := range ids {
				if !slices.Equal(ids[i], ids2[i]) {
					t.Fatalf("%s: same seed gave %v and %v", task.Name, ids[i], ids2[i])
				}
				if n := len(ids[i]); n < TrainMinLen || n > TrainMaxLen || n != len(ids[0]) {
					t.Fatalf("%s: got length %d want %d..%d, equal in a batch", task.Name, n, TrainMinLen, TrainMaxLen)
				}
				for _, id := range ids[i] {
					if !slices.Contains(task.Tokens, id) {
						t.Fatalf("%s: got token %q outside the task's tokens", task.Name, Alphabet[id])
					}
				}
				for _, y := range ys[i] {
					if y >= 0 {
						classSeen[y]++
					}
				}
			}
		}
		for k, n := range classSeen {
			if n == 0 {
				t.Errorf("%s: class %q never occurs in 800 generated sequences", task.Name, task.Classes[k])
			}
		}
	}
}

func TestTaskParse(t *testing.T) {
	for _, task := range Tasks {
		if _, err := task.Parse(task.Default); err != nil {
			t.Errorf("%s: default %q does not parse: %v", task.Name, task.Default, err)
		}
	}
	bad := []struct {
		task, input, want string
	}{
		{"checksum", "", "the input is empty"},
		{"checksum", "   ", "the input is empty"},
		{"checksum", "2", "at least 2 tokens"},
		{"checksum", "2 _ 1", `"_" is not one of them`},
		{"skip", "1 | 2", `"|" is not one of them`},
		{"reset", "1 a", `"a" is not one of them`},
		{"reset", "12345", `"4" is not one of them`},
		{"skip", strings.Repeat("1", MaxInputLen+1), "at most 40"},
	}
	for _, c := range bad {
		task, _ := FindTask(c.task)
		_, err := task.Parse(c.input)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %q: got error %v want one containing %q", c.task, c.input, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "data:") {
			t.Errorf("%s %q: got %q, want a sentence for a student, not a package error", c.task, c.input, err)
		}
	}
}

// TestTrainInput: X_t is one-hot except on the task's noisy tokens, where every
// coordinate carries N(0, σ²) noise; the same rng gives the same noise.
func TestTrainInput(t *testing.T) {
	ids := [][]int{{2, TokFiller}, {TokFiller, 0}}
	for _, c := range []struct {
		task  *Task
		noisy map[[2]int]bool // (row, step) pairs that must carry noise
	}{
		{SkipTask, map[[2]int]bool{{0, 1}: true, {1, 0}: true}},
		{ChecksumTask, map[[2]int]bool{}},
	} {
		for step := range 2 {
			x := c.task.TrainInput(ids, step, rand.New(rand.NewPCG(1, 1)))
			again := c.task.TrainInput(ids, step, rand.New(rand.NewPCG(1, 1)))
			for b := range ids {
				for k := range len(Alphabet) {
					clean := 0.0
					if ids[b][step] == k {
						clean = 1
					}
					got := x.At(b, k)
					if got != again.At(b, k) {
						t.Fatalf("%s row %d step %d: same rng gave %v and %v", c.task.Name, b, step, got, again.At(b, k))
					}
					if noisy := c.noisy[[2]int{b, step}]; noisy == (got == clean) {
						t.Errorf("%s row %d step %d x[%d]: got %v, want noise %v around %v", c.task.Name, b, step, k, got, noisy, clean)
					}
				}
			}
		}
	}
}

// TestSkipRuns: generated skip sequences are digits separated by filler runs of at
// most maxFillerRun tokens, and they start with a digit.
func TestSkipRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	longest := 0
	for range 500 {
		ids := SkipTask.Generate(rng, TrainMaxLen)
		if ids[0] == TokFiller {
			t.Fatalf("got %v, want a digit first", ids)
		}
		run := 0
		for _, id := range ids {
			if id == TokFiller {
				run++
			} else {
				run = 0
			}
			longest = max(longest, run)
		}
	}
	if longest != maxFillerRun {
		t.Errorf("longest filler run: got %d want %d", longest, maxFillerRun)
	}
}

// TestTaskWhy: the reason each step gives for its answer agrees with the answer, on
// generated sequences of every task: checksum says "valid" exactly where y_t is valid
// (the digit equals the first digit, the check digit), skip names the digit y_t, reset
// counts high and low digits whose sign is y_t; a step that asks nothing has no reason
// and the task says what its answer row shows there and why.
func TestTaskWhy(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, task := range Tasks {
		for range 50 {
			ids := task.Generate(rng, 2+rng.IntN(15))
			for s, y := range task.Targets(ids) {
				why := task.Why(ids, s)
				if y < 0 {
					if why != "" || task.Unasked == "" || task.UnaskedWhy == "" {
						t.Errorf("%s %v step %d asks nothing: why %q, shown %q because %q", task.Name, ids, s+1, why, task.Unasked, task.UnaskedWhy)
					}
					continue
				}
				var ok bool
				switch task.Name {
				case "checksum":
					ok = strings.Contains(why, "would be valid") == (y == 1) && strings.Contains(why, "the check digit")
				case "skip":
					ok = strings.HasSuffix(why, " is "+task.Classes[y])
				case "reset":
					var high, low int
					if _, err := fmt.Sscanf(why, "since the last break: %d high (2, 3), %d low (0, 1)", &high, &low); err != nil {
						t.Fatalf("reset why %q: %v", why, err)
					}
					ok = 1+signOf(high-low) == y
				}
				if !ok {
					t.Errorf("%s %v step %d: y = %s but why says %q", task.Name, ids, s+1, task.Classes[y], why)
				}
			}
		}
	}
	ids, _ := ChecksumTask.Parse("2 0 3 2")
	if got := ChecksumTask.Targets(ids)[0]; got != -1 {
		t.Errorf("checksum step 1: target %d, want none (-1): the check digit asks nothing", got)
	}
}
