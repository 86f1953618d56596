package web

import (
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/evanw/esbuild/pkg/api"
)

// The page's modules, bundled once when the server starts (bundleModules): a cold page
// on a crowded hall's Wi-Fi pays a round trip (150 ms) for every wave of six requests,
// and static/js is some thirty modules, so the page asks for a handful of files
// instead (docs/measurements.md, issue 22). The bundler is esbuild's Go API
// (github.com/evanw/esbuild), reading package static's embedded files; its output
// goes through the same hashing and compression as every other file (assets.go).
//
// The entry points are the page module and each drawing module of static/js/panels:
// static/js/draw.js imports a page's panel modules by name at run time, relative to
// its own URL, so each stays a file of its own at the same place under the bundle's
// folder (bundleDir + "panels/heatmap.js"). Code two entry points share goes into
// chunks, and a module the page imports lazily (exports, upload) into a chunk of its
// own. The output is not minified: a student who opens it reads our modules, one
// after another, under comments naming each file.
const bundleDir = "js/bundle/"

// bundleModules bundles fsys's page module (js/page.js) and drawing modules
// (js/panels/*.js) into files under bundleDir: path in fsys → contents.
func bundleModules(fsys fs.FS) (map[string][]byte, error) {
	entries := []api.EntryPoint{{InputPath: "js/page.js", OutputPath: "page"}}
	panels, err := fs.Glob(fsys, "js/panels/*.js")
	if err != nil {
		return nil, err
	}
	for _, p := range panels {
		entries = append(entries, api.EntryPoint{InputPath: p, OutputPath: strings.TrimSuffix(strings.TrimPrefix(p, "js/"), ".js")})
	}
	const ns = "static"
	fromStatic := api.Plugin{Name: "static", Setup: func(b api.PluginBuild) {
		b.OnResolve(api.OnResolveOptions{Filter: `.*`}, func(a api.OnResolveArgs) (api.OnResolveResult, error) {
			p := a.Path
			if a.Kind != api.ResolveEntryPoint {
				if !strings.HasPrefix(p, "./") && !strings.HasPrefix(p, "../") {
					return api.OnResolveResult{}, fmt.Errorf("%s imports %q: only relative imports of package static's files are bundled", a.Importer, p)
				}
				p = path.Join(path.Dir(a.Importer), p)
			}
			if _, err := fs.Stat(fsys, p); err != nil {
				return api.OnResolveResult{}, fmt.Errorf("%s imports %q: %v", a.Importer, a.Path, err)
			}
			return api.OnResolveResult{Path: p, Namespace: ns}, nil
		})
		b.OnLoad(api.OnLoadOptions{Filter: `.*`, Namespace: ns}, func(a api.OnLoadArgs) (api.OnLoadResult, error) {
			body, err := fs.ReadFile(fsys, a.Path)
			if err != nil {
				return api.OnLoadResult{}, err
			}
			s := string(body)
			return api.OnLoadResult{Contents: &s, Loader: api.LoaderJS}, nil
		})
	}}
	res := api.Build(api.BuildOptions{
		EntryPointsAdvanced: entries,
		Bundle:              true,
		Splitting:           true,
		Format:              api.FormatESModule,
		Target:              api.ES2020,
		Outdir:              "/" + bundleDir,
		ChunkNames:          "chunk-[hash]",
		Write:               false,
		LogLevel:            api.LogLevelSilent,
		Plugins:             []api.Plugin{fromStatic},
	})
	if len(res.Errors) > 0 {
		var msgs []string
		for _, m := range res.Errors {
			msgs = append(msgs, m.Text)
		}
		return nil, fmt.Errorf("web: bundling static/js: %s", strings.Join(msgs, "; "))
	}
	out := map[string][]byte{}
	for _, f := range res.OutputFiles {
		p := strings.TrimPrefix(f.Path, "/")
		if !strings.HasPrefix(p, bundleDir) {
			return nil, fmt.Errorf("web: the bundler wrote %s, outside %s", f.Path, bundleDir)
		}
		out[p] = f.Contents
	}
	return out, nil
}
