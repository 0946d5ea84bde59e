/** The hidden form field that carries the session's CSRF token (client-safe module). */
export const CSRF_FIELD = "csrf_token";
