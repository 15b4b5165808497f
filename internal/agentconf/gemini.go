package agentconf

import (
	"net/http"
)

func (s *Server) gemini(w http.ResponseWriter, r *http.Request, rec *Record) {
	writeJSON(w, http.StatusNotImplemented, errorBody(WireGemini, 501, "", "agentconf: gemini not yet scripted"))
}
