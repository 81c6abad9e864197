package pushbench.core;

import java.util.Enumeration;
import java.util.Locale;
import java.util.regex.Pattern;
import javax.servlet.http.HttpServletRequest;

/**
 * What a request's head asks for, decided once for every Tomcat handler before a body is read
 * (docs/protocol.md "Endpoints", "Server-Sent Events", "WebSocket", "Paths"): exactly one of
 * <ul>
 * <li>{@link #answer}: an answer at once, a refusal (400, 404, 405, 426) or the head alone of an SSE
 *     subscription asked with HEAD; {@link #closes}: with Connection: close;</li>
 * <li>{@link #upgrade}: a WebSocket upgrade of GET /request the checks took (only where the server speaks
 *     WebSocket; a server that does not refuses every upgrade to it, 400, as a transport it does not know);</li>
 * <li>{@link #stream}: an SSE subscription (GET /request), validated with its Last-Event-ID;</li>
 * <li>{@link #endpoint}: any other endpoint, its body (POST) still to be read.</li>
 * </ul>
 * A request is an upgrade when it has an Upgrade header and Connection names "upgrade" (RFC 7230 6.7);
 * an Upgrade header alone is no upgrade, and on GET /request a 400 that says so.
 */
public final class Head {
    /** Sec-WebSocket-Key: 16 bytes in base64 (RFC 6455 section 4.1). */
    private static final Pattern KEY = Pattern.compile("[A-Za-z0-9+/]{21}[AQgw]==");

    public final Answer answer;
    public final boolean closes;
    public final boolean upgrade;
    public final PushSpec stream;
    public final Endpoint endpoint;

    private Head(Answer answer, boolean closes, boolean upgrade, PushSpec stream, Endpoint endpoint) {
        this.answer = answer;
        this.closes = closes;
        this.upgrade = upgrade;
        this.stream = stream;
        this.endpoint = endpoint;
    }

    /** speaksWebSocket: whether this server takes a WebSocket upgrade (Tomcat 7) or refuses it (Tomcat 6). */
    public static Head of(HttpServletRequest request, boolean speaksWebSocket) {
        String path = request.getRequestURI().substring(request.getContextPath().length());
        String method = request.getMethod();
        if (isUpgrade(request)) {
            Answer problem = upgradeProblem(request, method, path, speaksWebSocket);
            return problem != null ? new Head(problem, true, false, null, null) : new Head(null, false, true, null, null);
        }
        Endpoint.Route route = Endpoint.route(method, path);
        if (route.rejection != null) {
            return new Head(route.rejection, false, false, null, null);
        }
        if (route.endpoint != Endpoint.STREAM) {
            return new Head(null, false, false, null, route.endpoint);
        }
        if (request.getHeader("Upgrade") != null) {
            return new Head(Answer.error(400, "an upgrade needs the header Connection: Upgrade"), false, false, null, null);
        }
        try {
            PushSpec spec = Validation.sseQuery(request.getParameterValues("type"), request.getParameterValues("events"),
                    request.getHeader("Last-Event-ID"));
            return "HEAD".equals(method) ? new Head(Answer.streamHead(), false, false, null, null)
                    : new Head(null, false, false, spec, null);
        } catch (BadInput e) {
            return new Head(e.toAnswer(), false, false, null, null);
        }
    }

    private static boolean isUpgrade(HttpServletRequest request) {
        if (request.getHeader("Upgrade") == null) {
            return false;
        }
        for (Enumeration<?> values = request.getHeaders("Connection"); values != null && values.hasMoreElements();) {
            for (String token : String.valueOf(values.nextElement()).split(",")) {
                if (token.trim().equalsIgnoreCase("upgrade")) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Why an upgrade is refused, or null to take it (docs/protocol.md "WebSocket", the upgrade). */
    private static Answer upgradeProblem(HttpServletRequest request, String method, String path, boolean speaksWebSocket) {
        if (Endpoint.hasDotSegment(path)) {
            return Answer.error(400, "path has a dot segment (. or .., also as %2e): " + path);
        }
        if (!Endpoint.REQUEST.path().equals(path)) {
            return Endpoint.allowed(path) != null ? Answer.error(400, "a WebSocket is opened at /request only")
                    : Answer.error(404, "no such path: " + path);
        }
        if (!"websocket".equals(request.getHeader("Upgrade").trim().toLowerCase(Locale.ROOT))) {
            return Answer.error(400, "unknown transport: /request is upgraded to websocket only");
        }
        if (!speaksWebSocket) {
            return Answer.error(400, "unknown transport: this server does not speak WebSocket (Tomcat 6 has no "
                    + "WebSocket API); its streams are comet, poll and SSE");
        }
        if (!"GET".equals(method)) {
            return Answer.error(400, "a WebSocket upgrade is a GET request");
        }
        if (!"13".equals(request.getHeader("Sec-WebSocket-Version"))) {
            return Answer.error(426, "Sec-WebSocket-Version must be 13 (RFC 6455)").withHeader("Sec-WebSocket-Version", "13");
        }
        String key = request.getHeader("Sec-WebSocket-Key");
        if (key == null || !KEY.matcher(key).matches()) {
            return Answer.error(400, "Sec-WebSocket-Key must be 16 bytes in base64");
        }
        return null;
    }
}
