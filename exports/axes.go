package exports

import "fmt"

// axis is what the meta "axes" says of an array: the names of its rows and columns
// and what they count ({rows, cols, row_title, col_title, value, mask}).
type axis struct {
	Rows, Cols         []string
	RowTitle, ColTitle string
	Mask               string
}

// axisOf is the first of the arrays' axes that the static meta (then the current
// step's) declares, as the page's common.js axisOf reads it.
func (v View) axisOf(names []string) axis {
	for _, n := range names {
		var a axis
		for _, src := range []map[string]any{v.Static.Meta, v.currentMeta()} {
			all, _ := src["axes"].(map[string]any)
			m, _ := all[n].(map[string]any)
			if m == nil {
				continue
			}
			if r := texts(m["rows"]); r != nil {
				a.Rows = r
			}
			if c := texts(m["cols"]); c != nil {
				a.Cols = c
			}
			if s, ok := m["row_title"].(string); ok {
				a.RowTitle = s
			}
			if s, ok := m["col_title"].(string); ok {
				a.ColTitle = s
			}
			if s, ok := m["mask"].(string); ok {
				a.Mask = s
			}
		}
		if a.ColTitle != "" || a.Cols != nil || a.Rows != nil {
			return a
		}
	}
	return axis{}
}

func (v View) currentMeta() map[string]any {
	if len(v.Frames) == 0 {
		return nil
	}
	return v.Frames[len(v.Frames)-1].Meta
}

// texts is a meta list as text: []string, or []any of anything printable.
func texts(x any) []string {
	switch l := x.(type) {
	case []string:
		return l
	case []any:
		out := make([]string, len(l))
		for i, e := range l {
			out[i] = fmt.Sprint(e)
		}
		return out
	case []int:
		out := make([]string, len(l))
		for i, e := range l {
			out[i] = fmt.Sprint(e)
		}
		return out
	}
	return nil
}

// labelsOf is the static list that names array name's entries (its declaration's
// Labels key: a softmax's vocabulary, a classifier's classes), if any.
func (v View) labelsOf(name string) []string {
	a, ok := v.Lesson.ArrayNamed(name)
	if !ok || a.Labels == "" {
		return nil
	}
	return texts(v.Static.Meta[a.Labels])
}
