package exports

import (
	"slices"
	"strconv"

	"unroll/figures"
	"unroll/lessons"
)

// arrayK is how many entries a top-k panel ranks from a bare probability array, which
// names no k: its five most likely (topk.js's ARRAY_K; the attention page's title says
// "top 5").
const arrayK = 5

// topEntry is one entry of a top-k list as a lesson's meta holds it.
type topEntry struct {
	Token *string `json:"token"`
	Label *string `json:"label"`
	P     float64 `json:"p"`
}

// name is the entry's token (or label).
func (e topEntry) name() string {
	switch {
	case e.Token != nil:
		return *e.Token
	case e.Label != nil:
		return *e.Label
	}
	return ""
}

// topkFigure draws a top-k panel (topk.js): the step's meta "topk" list whole (the
// lesson chose k and ranked it), else the panel's first array at the step ranked
// here, its arrayK most likely entries named by the array's labels; a ranked table
// with bars, the most likely first.
func topkFigure(v View, p lessons.Panel) (figures.Figure, error) {
	var list []topEntry
	if !metaAt(v, p, v.Step(), "topk", &list) && len(p.Arrays) > 0 {
		if a, ok := v.At(p.Arrays[0], v.Step()); ok {
			var labels []string
			if d, ok := v.Lesson.ArrayNamed(p.Arrays[0]); ok && d.Labels != "" {
				if x, ok := v.StaticMeta(d.Labels); ok {
					_ = decodeMeta(x, &labels)
				}
			}
			idx := make([]int, len(a.Data))
			for i := range idx {
				idx[i] = i
			}
			slices.SortStableFunc(idx, func(i, j int) int {
				switch {
				case a.Data[i] > a.Data[j]:
					return -1
				case a.Data[i] < a.Data[j]:
					return 1
				}
				return 0
			})
			for _, i := range idx[:min(arrayK, len(idx))] {
				name := "#" + strconv.Itoa(i)
				if i < len(labels) {
					name = labels[i]
				}
				list = append(list, topEntry{Token: &name, P: a.Data[i]})
			}
		}
	}
	if len(list) == 0 {
		return figures.Figure{}, errNoData(p, waiting(v, p))
	}
	t := figures.Table{BoldLabels: true}
	for _, e := range list {
		t.Rows = append(t.Rows, figures.Row{Label: shownToken(e.name()), Cells: []figures.Cell{{Text: percent(e.P), Bar: e.P, HasBar: true}}})
	}
	return figures.Figure{Title: stepTitle(v, p), Tables: []figures.Table{t}}, nil
}

// waiting says why a step has no prediction (topk.js's waiting).
func waiting(v View, p lessons.Panel) string {
	var phase string
	if metaAt(v, p, v.Step(), "phase", &phase) && (phase == "encoder" || phase == "context") {
		return "the decoder has not started yet: step on past the context"
	}
	if v.Step() == 0 {
		return "step forward to see predictions"
	}
	return "no prediction at this step"
}
