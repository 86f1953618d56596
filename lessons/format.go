package lessons

import "math"

// Formatting shared by the lessons: numbers as the pages show them.

// round4 rounds to 4 decimal places: for values near 1 (losses, accuracies, scores).
func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }

// longSentence and longReference are an English sentence of 20 tokens and a French
// one of 19 (with <eos>, the 20 a decoder may write): the longest the translation
// pages accept, for their Largest values.
const (
	longSentence  = "we are not eating the apples and they are watching the cat and he is eating the big red apples"
	longReference = "nous ne mangeons pas les pommes et ils regardent le chat et il mange les grosses pommes rouges"
)
