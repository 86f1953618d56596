package lessons

import "gonum.org/v1/gonum/mat"

// featureWords and featureNames are the lecture's featurised representation: each
// word scored by hand on a few features. man, woman, king and queen carry the
// lecture's numbers; boy, girl, apple and orange are added in the same spirit.
var (
	featureNames = []string{"gender", "royal", "age", "food"}
	featureWords = []string{"man", "woman", "king", "queen", "boy", "girl", "apple", "orange"}
	featureTable = mat.NewDense(8, 4, []float64{
		// gender royal age food
		-1, 0.01, 0.01, 0.03, // man
		1, 0.02, 0.01, 0.04, // woman
		-0.99, 0.97, 0.78, 0.04, // king
		0.99, 0.96, 0.77, 0.02, // queen
		-0.98, 0.00, -0.75, 0.02, // boy
		0.99, 0.01, -0.76, 0.01, // girl
		0.00, -0.01, 0.03, 0.95, // apple
		0.01, 0.00, -0.02, 0.97, // orange
	})
)
