package pushbench.core;

import com.google.gson.JsonObject;

/**
 * A complete, synchronous answer: status, JSON body and at most one header of its own (a 405's Allow, a
 * refused WebSocket version's Sec-WebSocket-Version); or the head alone of an SSE stream asked with HEAD
 * (no body, and no Content-Length: the length of its GET's body is not known).
 */
public final class Answer {
    public static final String JSON = "application/json";

    private final int status;
    private final String body;
    private final String contentType;
    private final String headerName;
    private final String headerValue;

    private Answer(int status, String body, String contentType, String headerName, String headerValue) {
        this.status = status;
        this.body = body;
        this.contentType = contentType;
        this.headerName = headerName;
        this.headerValue = headerValue;
    }

    private Answer(int status, String body, String headerName, String headerValue) {
        this(status, body, JSON, headerName, headerValue);
    }

    /** HEAD of GET /request with a valid SSE subscription: the stream's status and headers, nothing held. */
    public static Answer streamHead() {
        return new Answer(200, "", HeldResponse.EVENT_STREAM, "Cache-Control", "no-cache");
    }

    public static Answer ok(JsonObject body) {
        return new Answer(200, Json.write(body), null, null);
    }

    public static Answer error(int status, String message) {
        return new Answer(status, Json.write(Records.error(status, message)), null, null);
    }

    public static Answer methodNotAllowed(String allow) {
        return new Answer(405, Json.write(Records.error(405, "method not allowed; use " + allow)), "Allow", allow);
    }

    /** This answer with a header of its own. */
    public Answer withHeader(String name, String value) {
        return new Answer(status, body, contentType, name, value);
    }

    public int status() {
        return status;
    }

    public String body() {
        return body;
    }

    public String contentType() {
        return contentType;
    }

    /** False for a stream's head: its body is empty and its length not given. */
    public boolean hasBody() {
        return !body.isEmpty();
    }

    /** The Allow header of a 405, or null. */
    public String allow() {
        return "Allow".equals(headerName) ? headerValue : null;
    }

    /** The header of its own, or null. */
    public String headerName() {
        return headerName;
    }

    public String headerValue() {
        return headerValue;
    }
}
