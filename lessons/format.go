package lessons

import (
	"math"
	"strconv"

	"unroll/sim"
)

// Formatting shared by the lessons: numbers as the pages show them.

// maxSeed is the largest seed a page offers: more streams than anyone tries, and a
// number short enough to type.
const maxSeed = 1_000_000

// seedSpec is a page's "seed" parameter, 1 to maxSeed with default def, under the
// advanced settings; help says what it draws.
func seedSpec(def int, help string) sim.ParamSpec {
	return sim.ParamSpec{Name: "seed", Label: "seed", Kind: sim.Int, Default: strconv.Itoa(def), Min: 1, Max: maxSeed, Step: 1, Advanced: true,
		Help: help}
}

// round4 rounds to 4 decimal places: for values near 1 (losses, accuracies, scores).
func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }

// longSentence and longReference are an English sentence of 20 tokens and a French
// one of 19 (with <eos>, the 20 a decoder may write): the longest the translation
// pages accept, for their Largest values.
const (
	longSentence  = "we are not eating the apples and they are watching the cat and he is eating the big red apples"
	longReference = "nous ne mangeons pas les pommes et ils regardent le chat et il mange les grosses pommes rouges"
)

// Why the text fields of several pages take what they take (sim.ParamSpec.MaxLenWhy).
const (
	translationWhy = "the translation pages read at most 20 words, and 120 characters hold them"
	oneWordWhy     = "the field takes one word, and the corpus's words are all shorter"
	mtTypedWhy     = "the corpus's sentences have at most 10 tokens, and each of yours is a cell of the tables"
)

// subscript writes a whole number as the subscript of a symbol, x₁₂ for x_{12}.
func subscript(n int) string { return script(strconv.Itoa(n), true) }

// translationSpecs are the parameters of the pages whose translators read a date or an
// English sentence (attention, transformer): the task and the two inputs; a new slice
// each call, for the page's own to follow.
func translationSpecs() sim.Specs {
	return sim.Specs{
		{Name: "task", Label: "task", Kind: sim.Choice, Default: "dates", Choices: []string{"dates", "corpus"},
			Help: "dates: a date in any form → YYYY-MM-DD, character by character; corpus: English → French, word by word."},
		{Name: "date", Label: "date (dates task)", Kind: sim.Text, MaxLen: 40, MaxLenWhy: "every date form the model was trained on is shorter", Default: "22 November 2026",
			Help: "Any of the trained forms, e.g. nov 22, 2026 · Sunday 22/11/26 · 22.11.2026 · the 22nd of november 2026 (years 1969–2068)."},
		{Name: "sentence", Label: "sentence (corpus task)", Kind: sim.Text, MaxLen: 120, MaxLenWhy: translationWhy, Default: "they are watching .",
			Help: "English in the corpus's vocabulary, e.g. i lost . · the boy is not hot . · she doesn't want to sing the songs ."},
	}
}
