package pushbench.core;

/** The protocol's paths, with the one method each accepts. */
public enum Endpoint {
    TIMESTAMP("/timestamp", "GET"),
    LOGGING("/logging", "POST"),
    EVENT_SET("/event/set", "POST"),
    EVENT_REMOVE("/event/remove", "POST"),
    EVENT_CLEAR("/event/clear", "POST"),
    REQUEST("/request", "POST"),
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

    public static Endpoint of(String path) {
        for (Endpoint endpoint : values()) {
            if (endpoint.path.equals(path)) {
                return endpoint;
            }
        }
        return null;
    }

    /**
     * Routing shared by both handlers: the endpoint for a method and path, or the 404/405 answer.
     * Exactly one of the two fields of the result is set.
     */
    public static Route route(String method, String path) {
        Endpoint endpoint = of(path);
        if (endpoint == null) {
            return new Route(null, Answer.error(404, "no such path: " + path));
        }
        if (!endpoint.method.equals(method)) {
            return new Route(null, Answer.methodNotAllowed(endpoint.method));
        }
        return new Route(endpoint, null);
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
