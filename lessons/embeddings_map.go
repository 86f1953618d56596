package lessons

import (
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// project2D writes into out (V×2, row-major) the rows of E, scaled to unit length,
// projected on their first two principal components (gonum's stat.PC), and returns
// the share of the variance each explains. Each axis is oriented to agree with the
// previous contents of out when aligned, else so that its largest coordinate is
// positive.
func project2D(E *mat.Dense, out []float64, aligned bool) [2]float64 {
	V, d := E.Dims()
	X := mat.NewDense(V, d, nil)
	for w := range V {
		row := X.RawRowView(w)
		copy(row, E.RawRowView(w))
		if n := floats.Norm(row, 2); n > 0 {
			floats.Scale(1/n, row)
		}
	}
	var pc stat.PC
	if !pc.PrincipalComponents(X, nil) {
		clear(out)
		return [2]float64{}
	}
	var vecs mat.Dense
	pc.VectorsTo(&vecs)
	vars := pc.VarsTo(nil)
	means := make([]float64, d)
	for j := range d {
		means[j] = stat.Mean(mat.Col(nil, j, X), nil)
	}
	for axis := range 2 {
		dir := mat.Col(nil, axis, &vecs)
		coords := make([]float64, V)
		for w := range V {
			coords[w] = floats.Dot(X.RawRowView(w), dir) - floats.Dot(means, dir)
		}
		sign := 1.0
		if aligned {
			agree := 0.0
			for w := range V {
				agree += coords[w] * out[2*w+axis]
			}
			if agree < 0 {
				sign = -1
			}
		} else if floats.Max(coords) < -floats.Min(coords) {
			sign = -1
		}
		for w := range V {
			out[2*w+axis] = sign * coords[w]
		}
	}
	total := floats.Sum(vars)
	if total == 0 {
		return [2]float64{}
	}
	return [2]float64{vars[0] / total, vars[1] / total}
}
