package lessons

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"unicode/utf8"

	"gonum.org/v1/gonum/mat"

	"unroll/sim"
	"unroll/torchload"
)

// The yours page's input, read into X_1 … X_T: text through the vocabulary and the
// embedding, pasted numbers, or a generated sequence.

// vocabOf reads the vocabulary field: a JSON list of strings, or a string whose
// characters are the entries.
func vocabOf(raw string) ([]string, error) {
	var entries []string
	if t := strings.TrimSpace(raw); strings.HasPrefix(t, "[") {
		if err := json.Unmarshal([]byte(t), &entries); err != nil {
			return nil, fmt.Errorf("the vocabulary is not a JSON list of strings: %v", err)
		}
	} else {
		for _, r := range raw {
			entries = append(entries, string(r))
		}
	}
	seen := make(map[string]bool, len(entries))
	for i, e := range entries {
		if e == "" {
			return nil, fmt.Errorf("vocabulary entry %d is empty", i+1)
		}
		if seen[e] {
			return nil, fmt.Errorf("the vocabulary has %q twice", e)
		}
		seen[e] = true
	}
	return entries, nil
}

// readInput turns the page's input into X_1 … X_T: text through the vocabulary and the
// embedding, pasted numbers, or a generated sequence.
func (y *yoursModel) readInput(v sim.Values) error {
	a := y.arch
	var V int
	if y.m.Embed != nil {
		V, _ = y.m.Embed.E.Value.Dims()
	}
	if y.source == "text" && y.m.Embed == nil {
		return errors.New("text needs an nn.Embedding in the file, and this model has none: paste numbers (CSV) or generate a sequence")
	}
	if v.String("vocab") != "" {
		voc, err := vocabOf(v.String("vocab"))
		switch {
		case err != nil && y.source == "text":
			return err
		case err != nil: // only text reads it; the head's outputs are then numbered
		case (V > 0 && len(voc) == V) || (V == 0 && a.Head != nil && len(voc) == a.Head[0]):
			y.vocab = voc
		case y.source == "text":
			return fmt.Errorf("the vocabulary has %d entries; the model's embedding has %d rows", len(voc), V)
		}
	}
	var ids []int
	var rows [][]float64
	switch y.source {
	case "text":
		if y.m.Embed == nil {
			return errors.New("text needs an nn.Embedding in the file, and this model has none: paste numbers (CSV) or generate a sequence")
		}
		if y.vocab == nil {
			return errors.New("give the vocabulary: the characters in the embedding's row order, or a JSON list")
		}
		index := make(map[string]int, len(y.vocab))
		chars := true
		for i, e := range y.vocab {
			index[e] = i
			chars = chars && utf8.RuneCountInString(e) == 1
		}
		text := v.String("text")
		var pieces []string
		if chars {
			for _, r := range text {
				pieces = append(pieces, string(r))
			}
		} else {
			pieces = strings.Fields(text)
		}
		for i, p := range pieces {
			id, ok := index[p]
			if !ok {
				return fmt.Errorf("%q (token %d of the text) is not in the vocabulary", p, i+1)
			}
			ids = append(ids, id)
		}
	case "csv":
		for i, line := range strings.FieldsFunc(v.String("csv"), func(r rune) bool { return r == ';' || r == '\n' }) {
			if strings.TrimSpace(line) == "" {
				continue
			}
			var row []float64
			for _, f := range strings.Split(line, ",") {
				x, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
				if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
					return fmt.Errorf("row %d: %q is not a number", i+1, strings.TrimSpace(f))
				}
				row = append(row, x)
			}
			if y.m.Embed != nil {
				if len(row) != 1 || row[0] != math.Trunc(row[0]) || row[0] < 0 || int(row[0]) >= V {
					return fmt.Errorf("row %d: this model reads token ids through its embedding: give one whole number from 0 to %d a row", i+1, V-1)
				}
				ids = append(ids, int(row[0]))
				continue
			}
			if len(row) != a.InputSize {
				return fmt.Errorf("row %d has %d numbers; the model reads d = %d a step", i+1, len(row), a.InputSize)
			}
			rows = append(rows, row)
		}
	default: // generated
		T := v.Int("length")
		rng := rand.New(rand.NewPCG(y.seed, 0x5e9))
		signal := v.String("signal")
		value := func(t, j int) float64 {
			switch signal {
			case "steps":
				if (t/8+j)%2 == 0 {
					return 1
				}
				return -1
			case "noise":
				return rng.NormFloat64()
			}
			return math.Sin(2*math.Pi*float64(t)/16 + float64(j)*math.Pi/4)
		}
		for t := range T {
			if y.m.Embed != nil {
				u := (value(t, 0) + 1) / 2 // sine and steps in [0, 1]; noise is uniform ids
				if signal == "noise" {
					u = rng.Float64()
				}
				ids = append(ids, min(V-1, max(0, int(math.Round(u*float64(V-1))))))
				continue
			}
			row := make([]float64, a.InputSize)
			for j := range row {
				row[j] = value(t, j)
			}
			rows = append(rows, row)
		}
	}
	if len(ids)+len(rows) == 0 {
		return errors.New("the input is empty: give at least one step")
	}
	if n := len(ids) + len(rows); n > torchload.MaxSteps {
		return fmt.Errorf("the input has %d steps; the page runs at most %d", n, torchload.MaxSteps)
	}
	for _, id := range ids {
		y.pushToken(id)
	}
	for _, row := range rows {
		y.xs = append(y.xs, mat.NewDense(1, len(row), row))
		y.tokens = append(y.tokens, strconv.FormatFloat(round4(row[0]), 'g', 4, 64))
	}
	y.inputSteps = len(y.xs)
	return nil
}

// pushToken appends token id's step: its embedding row and its name.
func (y *yoursModel) pushToken(id int) {
	y.xs = append(y.xs, y.m.Embed.Forward([]int{id}))
	if id < len(y.vocab) {
		y.tokens = append(y.tokens, y.vocab[id])
	} else {
		y.tokens = append(y.tokens, "#"+strconv.Itoa(id))
	}
}
