package templates

import (
	"context"
	"slices"
	"testing"

	"unroll/lessons"
)

// TestKindPreloads: a lesson page preloads each panel kind's module with the modules
// it imports, once each, leaving out those the page's first modules bring (Preload);
// without Assets, the kinds' plain URLs.
func TestKindPreloads(t *testing.T) {
	l := &lessons.Lesson{Panels: []lessons.Panel{{Kind: lessons.NGrams}, {Kind: lessons.Heatmap}, {Kind: lessons.NGrams}}}
	if got, want := kindPreloads(context.Background(), l), []string{"/static/js/panels/ngrams.js", "/static/js/panels/heatmap.js"}; !slices.Equal(got, want) {
		t.Errorf("without Assets: got %q, want %q", got, want)
	}
	a := &Assets{
		URLs:    map[string]string{"js/panels/ngrams.js": "/n.1", "js/panels/heatmap.js": "/h.1"},
		Preload: []string{"/page.1", "/common.1"},
		Imports: map[string][]string{
			"js/panels/ngrams.js":  {"/n.1", "/common.1", "/edits.1", "/colors.1"},
			"js/panels/heatmap.js": {"/h.1", "/common.1", "/colors.1"},
		},
	}
	if got, want := kindPreloads(WithAssets(context.Background(), a), l), []string{"/n.1", "/edits.1", "/colors.1", "/h.1"}; !slices.Equal(got, want) {
		t.Errorf("with Assets: got %q, want %q", got, want)
	}
}
