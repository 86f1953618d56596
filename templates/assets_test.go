package templates

import (
	"context"
	"slices"
	"testing"
)

// TestPanelPreloads: a lesson page preloads each panel kind's module with every module
// it imports, directly or not, once each, leaving out those the page's first modules
// bring (Preload); without Assets, the kinds' plain URLs.
func TestPanelPreloads(t *testing.T) {
	kinds := []string{"ngrams", "heatmap"}
	if got, want := panelPreloads(context.Background(), kinds), []string{"/static/js/panels/ngrams.js", "/static/js/panels/heatmap.js"}; !slices.Equal(got, want) {
		t.Errorf("without Assets: got %q, want %q", got, want)
	}
	a := &Assets{
		Modules: "js/bundle/",
		URLs: map[string]string{
			"js/bundle/panels/ngrams.js": "/n.1", "js/bundle/panels/heatmap.js": "/h.1", "js/bundle/page.js": "/page.1",
			"js/bundle/chunk-common.js": "/common.1", "js/bundle/chunk-edits.js": "/edits.1", "js/bundle/chunk-colors.js": "/colors.1",
		},
		Preload: []string{"/page.1", "/common.1"},
		Imports: map[string][]string{
			"js/bundle/panels/ngrams.js":  {"js/bundle/chunk-common.js", "js/bundle/chunk-edits.js"},
			"js/bundle/chunk-edits.js":    {"js/bundle/chunk-colors.js"},
			"js/bundle/panels/heatmap.js": {"js/bundle/chunk-common.js", "js/bundle/chunk-colors.js"},
		},
	}
	if got, want := panelPreloads(WithAssets(context.Background(), a), kinds), []string{"/n.1", "/edits.1", "/colors.1", "/h.1"}; !slices.Equal(got, want) {
		t.Errorf("with Assets: got %q, want %q", got, want)
	}
}
