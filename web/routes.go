package web

import "net/http"

// routes registers every route of docs/api.md, in one place: the path, the method and
// the handler, with the file each handler lives in.
func (s *Server) routes() {
	// the API (server.go, api.go, models_run.go)
	s.get("/healthz", s.healthz)
	s.get("/api/v1/version", s.version)
	s.post("/api/v1/cell", s.cell)
	s.post("/api/v1/bleu", s.bleu)
	s.post("/api/v1/ter", s.ter)
	s.post("/api/v1/models/run", s.modelsRun)
	s.get("/api/v1/lessons", s.lessonList) // lessons.go

	// the lessons' pages and what they ask for (lessons.go, session.go, plots.go,
	// panels.go, model_export.go, yours.go; the static files: assets.go)
	s.get("/{$}", s.index)
	s.get("/lessons/{slug}", s.lessonPage)
	s.get("/lessons/{slug}/ws", s.lessonSocket)
	s.get("/lessons/{slug}/plots/{file}", s.plotExport)
	s.get("/lessons/{slug}/panels/{file}", s.panelExport)
	s.get("/lessons/{slug}/figures.zip", s.figurePack)
	s.get("/lessons/{slug}/model.safetensors", s.modelExport)
	s.post("/lessons/{slug}/model", s.yoursUpload)
	s.get("/static/", s.static.ServeHTTP)

	// rooms, docs/api.md "Rooms" (join.go, room_resume.go, room_follower.go)
	s.post("/api/v1/rooms", s.createRoom)
	s.post("/api/v1/rooms/{code}/end", s.endRoom)
	s.get("/api/v1/rooms/{code}", s.roomInfo) // an instructor back in a new tab
	s.get("/join", s.joinPage)
	s.get("/join/{code}", s.joinCode)
	s.get("/rooms/{code}", s.followPage)
	s.get("/rooms/{code}/ws", s.roomSocket)
	s.get("/rooms/{code}/qr.svg", s.roomQR)
	s.get("/rooms/{code}/qr.png", s.roomQR)

	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "there is no page or API at "+r.URL.Path)
	})
}

// get registers h for GET (and HEAD) on path and a JSON 405 for other methods.
func (s *Server) get(path string, h http.HandlerFunc) {
	s.mux.HandleFunc("GET "+path, h)
	s.mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", "GET, HEAD")
		writeError(w, http.StatusMethodNotAllowed, r.Method+" is not allowed here: use GET")
	})
}

// post registers h for POST on path and a JSON 405 for every other method.
func (s *Server) post(path string, h http.HandlerFunc) {
	s.mux.HandleFunc("POST "+path, h)
	s.mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", http.MethodPost)
		writeError(w, http.StatusMethodNotAllowed, r.Method+" is not allowed here: send the JSON body with POST")
	})
}
