// Package static holds the browser side of Unroll: the ES modules that own the lesson
// websocket and draw the panels (js/), the stylesheet (css/) and vendored third-party
// libraries at pinned versions (vendor/, see vendor/README.md). Package web serves FS
// at /static/.
package static

import "embed"

// FS is the embedded js/, css/ and vendor/ trees, served at /static/.
//
//go:embed js css vendor
var FS embed.FS
