package pushbench.core;

import com.google.gson.JsonObject;

/** A complete, synchronous answer: status, JSON body and (for 405) the Allow header. */
public final class Answer {
    public static final String JSON = "application/json";

    private final int status;
    private final String body;
    private final String allow;

    private Answer(int status, String body, String allow) {
        this.status = status;
        this.body = body;
        this.allow = allow;
    }

    public static Answer ok(JsonObject body) {
        return new Answer(200, Json.write(body), null);
    }

    public static Answer error(int status, String message) {
        return new Answer(status, Json.write(Records.error(status, message)), null);
    }

    public static Answer methodNotAllowed(String allow) {
        return new Answer(405, Json.write(Records.error(405, "method not allowed; use " + allow)), allow);
    }

    public int status() {
        return status;
    }

    public String body() {
        return body;
    }

    public String contentType() {
        return JSON;
    }

    /** The Allow header of a 405, or null. */
    public String allow() {
        return allow;
    }
}
