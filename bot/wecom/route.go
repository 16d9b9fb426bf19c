package wecom

import "net/http"

// Route serves a WeCom callback endpoint: a GET is the URL check, a POST a
// callback; any other method is refused, naming the two.
func Route(w http.ResponseWriter, r *http.Request, verifyURL, callback http.HandlerFunc) {
	switch r.Method {
	case http.MethodGet:
		verifyURL(w, r)
	case http.MethodPost:
		callback(w, r)
	default:
		w.Header().Set("Allow", "GET, POST")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	}
}
