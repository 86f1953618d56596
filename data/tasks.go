package data

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"unicode"

	"gonum.org/v1/gonum/mat"
)

// The token alphabet every generated task draws from. A token's index is its
// position in the one-hot input X_t, so all tasks share d = len(Alphabet).
var Alphabet = []string{"0", "1", "2", "3", "_", "|"}

// Token ids of the alphabet.
const (
	TokFiller = 4 // "_": a token that carries nothing (lecture 4.3's auxiliary HTML)
	TokBreak  = 5 // "|": a logical break (a new chapter, a new market regime)
	Digits    = 4 // tokens 0..3 are the digits
)

// Bounds on generated and typed sequences.
const (
	TrainMinLen = 6  // long enough that memory matters
	TrainMaxLen = 16 // short enough that a minibatch step is a millisecond
	MaxInputLen = 40 // a typed sequence must fit the page's heatmaps
)

// Settings of the skip task.
const (
	maxFillerRun = 6   // filler runs of 0..6 tokens: long enough that a leaky state would fade
	skipNoise    = 0.8 // σ of the filler noise: nearly as large as the one-hot signal itself
)

// Task is one of lecture 4.3's three situations as a generated sequence task. Each
// step t has a target y_t (or none), which a small GRU learns to predict from H_t.
type Task struct {
	Name        string   // URL value, e.g. "checksum"
	Title       string   // one line for the page
	Description string   // what the model must do, for students
	Tokens      []int    // the alphabet ids this task uses (a typed input may use only these)
	Classes     []string // the names of the targets y_t
	Default     string   // the input shown first
	MinLen      int      // the shortest sequence that makes sense
	// Noise is σ of the Gaussian noise training adds to every coordinate of X_t when
	// the token is one of NoisyTokens (σ = 0: none); see TrainInput.
	Noise       float64
	NoisyTokens []int

	// Unasked is what the answer row shows at a step that asks nothing, and UnaskedWhy
	// says why it asks nothing ("" when every step asks something).
	Unasked    string
	UnaskedWhy string

	generate func(rng *rand.Rand, n int) []int
	targets  func(ids []int) []int
	why      func(ids []int, t int) string // why y_t is what it is, for step t (0-based) that asks something
}

// Tasks lists the three situations in the lecture's order.
var Tasks = []*Task{ChecksumTask, SkipTask, ResetTask}

// FindTask returns the task called name.
func FindTask(name string) (*Task, bool) {
	for _, t := range Tasks {
		if t.Name == name {
			return t, true
		}
	}
	return nil, false
}

// TaskNames lists the tasks' names in order.
func TaskNames() []string {
	out := make([]string, len(Tasks))
	for i, t := range Tasks {
		out[i] = t.Name
	}
	return out
}

// ChecksumTask: the first token is a check digit c, then digits follow; the sequence
// is valid when its last digit equals c. At every step t ≥ 2 the target is "would
// the sequence be valid if it ended here", y_t = [x_t = c], so c must be kept to the end.
var ChecksumTask = &Task{
	Name:  "checksum",
	Title: "Remember an early checksum",
	Description: "The first digit is a check digit. The sequence is valid when its last digit " +
		"equals the check digit, so the model has to keep the first digit until the very end. " +
		"At every step it answers: would the sequence be valid if it stopped here?",
	Tokens:     []int{0, 1, 2, 3},
	Classes:    []string{"invalid", "valid"},
	Default:    "2 0 3 1 3 0 1 3 1 0 2",
	MinLen:     2,
	Unasked:    "—",
	UnaskedWhy: "step 1 reads the check digit itself, which later digits are compared with: it asks nothing",
	generate: func(rng *rand.Rand, n int) []int {
		ids := make([]int, n)
		for i := range ids {
			ids[i] = rng.IntN(Digits)
		}
		if rng.IntN(2) == 0 { // half of the sequences end valid
			ids[n-1] = ids[0]
		}
		return ids
	},
	targets: func(ids []int) []int {
		y := make([]int, len(ids))
		y[0] = -1 // the check digit itself is not a question
		for t := 1; t < len(ids); t++ {
			if ids[t] == ids[0] {
				y[t] = 1
			}
		}
		return y
	},
	why: func(ids []int, t int) string {
		if ids[t] == ids[0] {
			return fmt.Sprintf("xₜ = %s, the check digit: the sequence would be valid if it ended here", Alphabet[ids[t]])
		}
		return fmt.Sprintf("xₜ = %s ≠ %s, the check digit: a sequence ending here would be invalid", Alphabet[ids[t]], Alphabet[ids[0]])
	},
}

// SkipTask: digits separated by runs of filler tokens "_"; the target at every step
// is the most recent digit, so filler must leave the state alone. In training every
// filler token's X_t also carries Gaussian noise (Noise), as junk markup does
// not look the same twice: a candidate H̃_t computed from it is corrupted, so the way
// to keep the state is not to write it at all, Z_t ≈ 1.
var SkipTask = &Task{
	Name:  "skip",
	Title: "Skip irrelevant tokens",
	Description: "Digits are mixed with filler tokens _ that mean nothing, like markup around the " +
		"words of a web page. At every step the model must name the most recent digit, so a " +
		"filler token should leave the hidden state exactly as it was.",
	Tokens:      []int{0, 1, 2, 3, TokFiller},
	Classes:     []string{"0", "1", "2", "3"},
	Default:     "2 _ _ 1 _ _ _ 3 _ 0 _ _ _ _ 1 _ _",
	MinLen:      1,
	Unasked:     "—",
	UnaskedWhy:  "no digit has come yet, so there is none to name",
	Noise:       skipNoise,
	NoisyTokens: []int{TokFiller},
	generate: func(rng *rand.Rand, n int) []int {
		ids := make([]int, n)
		for i := 0; i < n; {
			ids[i] = rng.IntN(Digits)
			i++
			for run := rng.IntN(maxFillerRun + 1); run > 0 && i < n; run-- {
				ids[i] = TokFiller
				i++
			}
		}
		return ids
	},
	targets: func(ids []int) []int {
		y := make([]int, len(ids))
		last := -1
		for t, id := range ids {
			if id < Digits {
				last = id
			}
			y[t] = last
		}
		return y
	},
	why: func(ids []int, t int) string {
		for k := t; k >= 0; k-- {
			if ids[k] < Digits {
				return fmt.Sprintf("the most recent digit, at step %d, is %s", k+1, Alphabet[ids[k]])
			}
		}
		return "" // targets asks nothing before the first digit
	},
}

// ResetTask: segments of digits separated by breaks "|"; the target at every step is
// the sign of the balance since the last break, +1 for every high digit (2, 3) and −1
// for every low one (0, 1). Every digit changes the count, so on digits the candidate
// H̃_t needs the old state; at a break the old count is wrong information for the new
// segment, and the break should reset the hidden state.
var ResetTask = &Task{
	Name:  "reset",
	Title: "Reset at a logical break",
	Description: "Digits come in segments separated by a break |, like chapters of a book. At every " +
		"step the model answers whether, since the last break, it has seen more high digits (2, 3) " +
		"than low ones (0, 1), as many, or fewer: the count starts again at every break, so what " +
		"the hidden state held before the break must be forgotten.",
	Tokens:  []int{0, 1, 2, 3, TokBreak},
	Classes: []string{"more low", "even", "more high"},
	Default: "2 3 0 | 1 0 2 | 3 3 | 0 1 2 3 2",
	MinLen:  1,
	generate: func(rng *rand.Rand, n int) []int {
		const breakShare = 0.2 // segments of about four digits
		ids := make([]int, n)
		for i := range ids {
			if i > 0 && rng.Float64() < breakShare {
				ids[i] = TokBreak
			} else {
				ids[i] = rng.IntN(Digits)
			}
		}
		return ids
	},
	targets: func(ids []int) []int {
		y := make([]int, len(ids))
		balance := 0
		for t, id := range ids {
			switch {
			case id == TokBreak:
				balance = 0
			case id >= 2:
				balance++
			default:
				balance--
			}
			y[t] = 1 + signOf(balance)
		}
		return y
	},
	why: func(ids []int, t int) string {
		high, low := 0, 0
		for k := t; k >= 0 && ids[k] != TokBreak; k-- {
			if ids[k] >= 2 {
				high++
			} else {
				low++
			}
		}
		return fmt.Sprintf("since the last break: %d high (2, 3), %d low (0, 1)", high, low)
	},
}

// signOf is −1, 0 or +1: the sign of n.
func signOf(n int) int {
	switch {
	case n < 0:
		return -1
	case n > 0:
		return 1
	}
	return 0
}

// Generate returns a sequence of n token ids drawn from rng.
func (t *Task) Generate(rng *rand.Rand, n int) []int {
	if n < t.MinLen {
		panic(fmt.Sprintf("data: %s sequences need at least %d tokens, got %d", t.Name, t.MinLen, n))
	}
	return t.generate(rng, n)
}

// Targets returns y_t for every step of ids: a class index, or −1 where the step
// asks nothing.
func (t *Task) Targets(ids []int) []int { return t.targets(ids) }

// Why says why y_t is the target it is at step t (0-based) of ids, in the task's
// terms ("x_t = 2, the check digit: …"); "" at a step that asks nothing.
func (t *Task) Why(ids []int, step int) string {
	if t.targets(ids)[step] < 0 {
		return ""
	}
	return t.why(ids, step)
}

// allowed describes the task's tokens for an error message: "0, 1, 2, 3 and _".
func (t *Task) allowed() string {
	names := make([]string, len(t.Tokens))
	for i, id := range t.Tokens {
		names[i] = Alphabet[id]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// Parse reads a typed sequence: one character per token, spaces and commas ignored.
// Its errors are sentences a student can act on.
func (t *Task) Parse(text string) ([]int, error) {
	var ids []int
	for _, r := range text {
		if unicode.IsSpace(r) || r == ',' {
			continue
		}
		id := -1
		for _, tok := range t.Tokens {
			if Alphabet[tok] == string(r) {
				id = tok
			}
		}
		if id < 0 {
			return nil, fmt.Errorf("the %s task reads only the tokens %s; %q is not one of them", t.Name, t.allowed(), string(r))
		}
		ids = append(ids, id)
	}
	switch {
	case len(ids) == 0:
		return nil, fmt.Errorf("the input is empty: type a sequence of the tokens %s, such as %q", t.allowed(), t.Default)
	case len(ids) < t.MinLen:
		return nil, fmt.Errorf("the %s task needs at least %d tokens: a check digit and at least one more", t.Name, t.MinLen)
	case len(ids) > MaxInputLen:
		return nil, fmt.Errorf("the input has %d tokens; at most %d fit on the page", len(ids), MaxInputLen)
	}
	return ids, nil
}

// TrainInput returns X_t for step t of a minibatch of equally long sequences: one-hot
// rows, plus N(0, Noise²) drawn from rng on every coordinate of a row whose token is
// one of NoisyTokens (the skip task's filler). Evaluation and the page read the clean
// one-hot vectors.
func (t *Task) TrainInput(ids [][]int, step int, rng *rand.Rand) *mat.Dense {
	x := mat.NewDense(len(ids), len(Alphabet), nil)
	for b, seq := range ids {
		if t.Noise > 0 && slices.Contains(t.NoisyTokens, seq[step]) {
			for k := range len(Alphabet) {
				x.Set(b, k, t.Noise*rng.NormFloat64())
			}
		}
		x.Set(b, seq[step], x.At(b, seq[step])+1)
	}
	return x
}

// Batch draws B sequences of one length n ∈ [TrainMinLen, TrainMaxLen] and their
// targets: a training minibatch.
func (t *Task) Batch(rng *rand.Rand, B int) (ids, targets [][]int) {
	n := TrainMinLen + rng.IntN(TrainMaxLen-TrainMinLen+1)
	ids = make([][]int, B)
	targets = make([][]int, B)
	for b := range B {
		ids[b] = t.Generate(rng, n)
		targets[b] = t.Targets(ids[b])
	}
	return ids, targets
}
