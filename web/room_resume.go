package web

import (
	"net/http"
	"net/url"
)

// An instructor who closed the tab comes back (issue 22): the browser remembers the
// class it leads (static/js/room.js, localStorage) and its secret is still the HttpOnly
// cookie createRoom set, so a new page asks GET /api/v1/rooms/{code} for the join
// panel's contents, offers "Resume your class CODE", and on a click opens its lesson
// socket with room=CODE, which claims the room's run (room.claim) as a reconnect does.

// roomInfo serves GET /api/v1/rooms/{code}: what POST /api/v1/rooms answered — the
// code, the room's lesson now, the join links — to the browser that leads the room
// only (its cookie), so that its page can show the join panel again. Anyone else gets
// 403; a code that is wrong, expired or ended gets 404 and costs a guess, as joining does.
func (s *Server) roomInfo(w http.ResponseWriter, r *http.Request) {
	rm, rerr := s.rooms.find(clientOf(r), r.PathValue("code"))
	if rerr == nil && !rm.authorize(r) {
		rerr = &roomError{http.StatusForbidden, "only the instructor's browser leads this class"}
	}
	if rerr != nil {
		writeError(w, rerr.status, rerr.msg)
		return
	}
	rm.mu.Lock()
	slug := rm.lesson.Slug
	rm.mu.Unlock()
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, s.joinInfo(r, rm.code, slug))
}

// joinInfo is the join panel of room code on lesson slug, as seen from request r: the
// addresses students can reach, each with its join URL and QR codes.
func (s *Server) joinInfo(r *http.Request, code, slug string) roomCreated {
	hosts, loopbackOnly := joinHosts(r.Host, s.listenAddr(r), lanAddrs())
	out := roomCreated{Code: code, Lesson: slug, LoopbackOnly: loopbackOnly}
	if loopbackOnly {
		out.Hint = listenHint
	}
	for _, h := range hosts {
		q := "?host=" + url.QueryEscape(h)
		out.Join = append(out.Join, joinLink{Host: h, URL: joinURL(r, h, code),
			QRSVG: "/rooms/" + code + "/qr.svg" + q, QRPNG: "/rooms/" + code + "/qr.png" + q})
	}
	return out
}
