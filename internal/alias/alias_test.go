package alias

import (
	"reflect"
	"slices"
	"testing"
)

type inner struct{ xs []float64 }

type outer struct {
	name   string
	in     *inner
	byName map[string]*inner
	list   []*inner
	any    any
}

func TestShared(t *testing.T) {
	shared := &inner{xs: []float64{1, 2}}
	a := &outer{name: "a", in: shared, byName: map[string]*inner{"k": {xs: []float64{3}}}}
	deep := &outer{name: "a", in: &inner{xs: slices.Clone(shared.xs)}, byName: map[string]*inner{"k": {xs: []float64{3}}}}
	if got := Shared(a, deep, nil); len(got) != 0 {
		t.Errorf("a deep copy shares %v", got)
	}
	shallow := *a
	if got := Shared(a, &shallow, nil); !slices.Contains(got, ".in") || !slices.Contains(got, ".in.xs") || !slices.Contains(got, ".byName") {
		t.Errorf("a shallow copy: got %v, want .in, .in.xs and .byName among them", got)
	}
	// A sub-slice of a's data, reached through an interface in a slice.
	view := &outer{list: []*inner{{xs: shared.xs[1:]}}}
	if got := Shared(a, view, nil); !slices.Equal(got, []string{".list[0].xs"}) {
		t.Errorf("a view into a's slice: got %v, want [.list[0].xs]", got)
	}
	view.any = a.byName
	if got := Shared(a, view, nil); !slices.Contains(got, ".any") || !slices.Contains(got, ".any[k].xs") {
		t.Errorf("a map behind an interface: got %v", got)
	}
	// What skip reaches may be shared; counts narrows the report to some types.
	if got := Shared(a, &shallow, nil, shared, a.byName); len(got) != 0 {
		t.Errorf("with the shared parts skipped: got %v, want nothing", got)
	}
	onlySlices := func(t reflect.Type) bool { return t.Kind() == reflect.Slice }
	if got := Shared(a, &shallow, onlySlices); !slices.Equal(got, []string{".in.xs", ".byName[k].xs"}) {
		t.Errorf("slices only: got %v, want [.in.xs .byName[k].xs]", got)
	}
}
