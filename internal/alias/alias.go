// Package alias finds the memory two values share, for the tests of copies that must
// share nothing mutable with their originals (sim.Forker, models.Copier). It walks
// everything a value reaches through pointers, slices, maps and interfaces, exported
// fields or not. Only test files import it.
package alias

import (
	"fmt"
	"reflect"
	"sort"
)

// maxReport bounds Shared's list: the first few paths say what is wrong.
const maxReport = 20

// span is one piece of memory a value reaches: [lo, hi) and the path that reaches it.
type span struct {
	lo, hi uintptr
	path   string
}

// walker collects the spans a value reaches.
type walker struct {
	counts  func(reflect.Type) bool
	spans   []span
	visited map[visit]bool
}

// visit is a pointer already walked, with its type (a struct and its first field share
// an address).
type visit struct {
	addr uintptr
	typ  reflect.Type
}

// Shared lists the paths from b of the memory b and a both reach, leaving out the
// memory any of skip reaches (what every copy may share: a bundled read-only model, a
// dataset). counts, when not nil, limits the report to memory of the types it accepts:
// the element type of a pointer, the type of a slice or a map. Strings and functions
// are not walked (strings are immutable; a closure's captures cannot be seen).
func Shared(a, b any, counts func(reflect.Type) bool, skip ...any) []string {
	sa := setOf(spansOf(a, counts))
	var ss []span
	for _, s := range skip {
		ss = append(ss, spansOf(s, nil)...)
	}
	skipped := setOf(ss)
	var out []string
	for _, s := range spansOf(b, counts) {
		if sa.overlaps(s) && !skipped.overlaps(s) {
			out = append(out, s.path)
			if len(out) == maxReport {
				break
			}
		}
	}
	return out
}

func spansOf(v any, counts func(reflect.Type) bool) []span {
	w := &walker{counts: counts, visited: map[visit]bool{}}
	w.walk(reflect.ValueOf(v), "")
	return w.spans
}

// spanSet is spans sorted by start, with the largest end among each prefix.
type spanSet struct {
	spans []span
	maxHi []uintptr // maxHi[i] = max(spans[0..i].hi)
}

func setOf(spans []span) spanSet {
	sort.Slice(spans, func(i, j int) bool { return spans[i].lo < spans[j].lo })
	maxHi := make([]uintptr, len(spans))
	for i, s := range spans {
		maxHi[i] = s.hi
		if i > 0 {
			maxHi[i] = max(maxHi[i], maxHi[i-1])
		}
	}
	return spanSet{spans, maxHi}
}

// overlaps reports whether s overlaps a span of the set: one that starts before s
// ends and ends after s starts.
func (set spanSet) overlaps(s span) bool {
	i := sort.Search(len(set.spans), func(i int) bool { return set.spans[i].lo >= s.hi })
	return i > 0 && set.maxHi[i-1] > s.lo
}

func (w *walker) add(lo, size uintptr, t reflect.Type, path string) {
	if size == 0 || (w.counts != nil && !w.counts(t)) {
		return
	}
	w.spans = append(w.spans, span{lo, lo + size, path})
}

func (w *walker) walk(v reflect.Value, path string) {
	if !v.IsValid() {
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return
		}
		et := v.Type().Elem()
		w.add(v.Pointer(), et.Size(), et, path)
		key := visit{v.Pointer(), et}
		if w.visited[key] {
			return
		}
		w.visited[key] = true
		w.walk(v.Elem(), path)
	case reflect.Interface:
		w.walk(v.Elem(), path)
	case reflect.Struct:
		for i := range v.NumField() {
			w.walk(v.Field(i), path+"."+v.Type().Field(i).Name)
		}
	case reflect.Slice:
		if v.Cap() == 0 {
			return
		}
		w.add(v.Pointer(), uintptr(v.Cap())*v.Type().Elem().Size(), v.Type(), path)
		key := visit{v.Pointer(), v.Type()}
		if w.visited[key] || !pointery(v.Type().Elem()) {
			return
		}
		w.visited[key] = true
		for i := range v.Len() {
			w.walk(v.Index(i), fmt.Sprintf("%s[%d]", path, i))
		}
	case reflect.Array:
		if !pointery(v.Type().Elem()) {
			return
		}
		for i := range v.Len() {
			w.walk(v.Index(i), fmt.Sprintf("%s[%d]", path, i))
		}
	case reflect.Map:
		if v.IsNil() {
			return
		}
		w.add(v.Pointer(), 1, v.Type(), path)
		key := visit{v.Pointer(), v.Type()}
		if w.visited[key] {
			return
		}
		w.visited[key] = true
		it := v.MapRange()
		for it.Next() {
			k := fmt.Sprint(it.Key())
			w.walk(it.Key(), path+"{key "+k+"}")
			w.walk(it.Value(), path+"["+k+"]")
		}
	case reflect.Chan:
		if !v.IsNil() {
			w.add(v.Pointer(), 1, v.Type(), path)
		}
	}
}

// pointery reports whether a value of type t can reach other memory (strings and
// functions aside, which Shared does not walk).
func pointery(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.Slice, reflect.Map, reflect.Chan:
		return true
	case reflect.Array:
		return pointery(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if pointery(t.Field(i).Type) {
				return true
			}
		}
	}
	return false
}
