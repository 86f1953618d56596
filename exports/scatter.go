package exports

import (
	"unroll/figures"
	"unroll/lessons"
)

// scatterFigure is a scatter panel: the static [V, 2] points of its first array (the
// embeddings' first two principal components), one series per word class (the static
// "word_class" indexing "class_names"), each point labelled with its word.
func scatterFigure(v View, p lessons.Panel) (figures.Figure, error) {
	a, ok := v.StaticArray(p.Arrays[0])
	if !ok || len(a.Shape) != 2 || a.Shape[1] != 2 {
		return figures.Figure{}, errNoData(p, "the model has no map of points")
	}
	words := texts(v.Static.Meta["words"])
	classes := texts(v.Static.Meta["class_names"])
	of := ints(v.Static.Meta["word_class"])
	series := map[int]*figures.Series{}
	var order []int
	for i := range a.Shape[0] {
		c := 0
		if i < len(of) {
			c = of[i]
		}
		s, ok := series[c]
		if !ok {
			label := "words"
			if c < len(classes) {
				label = classes[c]
			}
			s = &figures.Series{Label: label}
			series[c] = s
			order = append(order, c)
		}
		s.X, s.Y = append(s.X, a.Data[2*i]), append(s.Y, a.Data[2*i+1])
		w := ""
		if i < len(words) {
			w = words[i]
		}
		s.Labels = append(s.Labels, w)
	}
	f := figures.Figure{Title: Text(p.Title), XLabel: "first principal component", YLabel: "second principal component", Points: true}
	for _, c := range order {
		f.Series = append(f.Series, *series[c])
	}
	return f, nil
}

// ints is a meta list of whole numbers.
func ints(x any) []int {
	switch l := x.(type) {
	case []int:
		return l
	case []any:
		out := make([]int, len(l))
		for i, e := range l {
			switch n := e.(type) {
			case int:
				out[i] = n
			case float64:
				out[i] = int(n)
			}
		}
		return out
	}
	return nil
}
