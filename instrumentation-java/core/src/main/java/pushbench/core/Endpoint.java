package pushbench.core;

/**
 * The protocol's endpoints: a path and the method it is asked with (GET /request is an SSE stream). HEAD
 * asks for a GET endpoint's head: routed to it, its answer's body left out by the container (an SSE
 * stream's by {@link Head}).
 */
public enum Endpoint {
    TIMESTAMP("/timestamp", "GET"),
    LOGGING("/logging", "POST"),
    EVENT_SET("/event/set", "POST"),
    EVENT_REMOVE("/event/remove", "POST"),
    EVENT_PUBLISH("/event/publish", "POST"),
    EVENT_CLEAR("/event/clear", "POST"),
    REQUEST("/request", "POST"),
    STREAM("/request", "GET"),
    STATUS("/status", "GET");

    private final String path;
    private final String method;

    Endpoint(String path, String method) {
        this.path = path;
        this.method = method;
    }

    public String path() {
        return path;
    }

    public String method() {
        return method;
    }

    /** POST endpoints read a body (possibly empty); GET endpoints answer at once. */
    public boolean hasBody() {
        return "POST".equals(method);
    }

    /** The methods a path is asked with, as an Allow header names them ("POST, GET"); null for an unknown path. */
    public static String allowed(String path) {
        StringBuilder allow = new StringBuilder();
        for (Endpoint endpoint : values()) {
            if (endpoint.path.equals(path)) {
                allow.append(allow.length() == 0 ? "" : ", ").append(endpoint.method);
            }
        }
        return allow.length() == 0 ? null : allow.toString();
    }

    /**
     * Routing shared by both handlers: the endpoint for a method and path (the request target's path as
     * sent, not decoded), or the 400/404/405 answer. Exactly one of the two fields of the result is set.
     */
    public static Route route(String method, String path) {
        if (hasDotSegment(path)) {
            return new Route(null, Answer.error(400, "path has a dot segment (. or .., also as %2e): " + path));
        }
        for (Endpoint endpoint : values()) {
            if (endpoint.path.equals(path) && (endpoint.method.equals(method) || isHeadOf(method, endpoint))) {
                return new Route(endpoint, null);
            }
        }
        String allow = allowed(path);
        if (allow == null) {
            return new Route(null, Answer.error(404, "no such path: " + path));
        }
        return new Route(null, Answer.methodNotAllowed(allow));
    }

    private static boolean isHeadOf(String method, Endpoint endpoint) {
        return "HEAD".equals(method) && "GET".equals(endpoint.method);
    }

    /**
     * True if a segment of the path is "." or "..", each dot also written %2e or %2E: a client must name the
     * path itself, not one a server would reach by resolving it (servers differ in whether they resolve).
     */
    static boolean hasDotSegment(String path) {
        if (path.indexOf('.') < 0 && path.indexOf('%') < 0) {
            return false; // every protocol path: no work on the hot path
        }
        for (String segment : path.split("/", -1)) {
            String dots = segment.replaceAll("(?i)%2e", ".");
            if (dots.equals(".") || dots.equals("..")) {
                return true;
            }
        }
        return false;
    }

    public static final class Route {
        public final Endpoint endpoint;
        public final Answer rejection;

        Route(Endpoint endpoint, Answer rejection) {
            this.endpoint = endpoint;
            this.rejection = rejection;
        }
    }
}
