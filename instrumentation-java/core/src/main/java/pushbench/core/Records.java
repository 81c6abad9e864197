package pushbench.core;

import com.google.gson.JsonObject;

/**
 * Builders for every JSON body of docs/protocol.md. A normal record never contains the words "error" or
 * "timeout": the load plan's assertions search bodies for those substrings.
 */
public final class Records {
    private Records() {
    }

    /** An event record: emit cycle {@code cycle} reached request {@code r} at {@code place} of its snapshot. */
    static JsonObject event(PushRequest r, EmitCycle cycle, int place, long sent, int finish) {
        JsonObject event = new JsonObject();
        event.addProperty("name", cycle.name);
        event.addProperty("cycle", cycle.id);
        if (cycle.data != null) {
            event.add("data", cycle.data);
        }
        event.add("timings", timings(sent, cycle.created));
        JsonObject connections = new JsonObject();
        connections.addProperty("total", cycle.total);
        connections.addProperty("place", place);
        event.add("connections", connections);
        JsonObject response = new JsonObject();
        response.add("event", event);
        return envelope(r, response, sent, finish);
    }

    static JsonObject timeout(PushRequest r, long sent, int finish) {
        JsonObject timeout = new JsonObject();
        timeout.addProperty("duration", r.spec().duration());
        JsonObject response = new JsonObject();
        response.add("timeout", timeout);
        return envelope(r, response, sent, finish);
    }

    /** reason: "clear" (POST /event/clear) or "shutdown" (the webapp stops). */
    static JsonObject clear(PushRequest r, String reason, long sent, int finish) {
        JsonObject clear = new JsonObject();
        clear.addProperty("reason", reason);
        JsonObject response = new JsonObject();
        response.add("clear", clear);
        return envelope(r, response, sent, finish);
    }

    /**
     * A cycle a resumed stream missed that is still kept: sent now, in no cycle's snapshot (so no
     * connections), like a pull's event (docs/protocol.md "Replay and gaps"). kept: {id, created}.
     */
    static JsonObject replay(PushRequest r, String name, long[] kept, long sent, int finish) {
        JsonObject replay = new JsonObject();
        replay.addProperty("name", name);
        replay.addProperty("cycle", kept[0]);
        replay.add("timings", timings(sent, kept[1]));
        JsonObject response = new JsonObject();
        response.add("replay", replay);
        return envelope(r, response, sent, finish);
    }

    /** Cycles from..to (inclusive) of {@code name} a resumed stream missed that are no longer replayed. */
    static JsonObject gap(PushRequest r, String name, long from, long to, long sent, int finish) {
        JsonObject gap = new JsonObject();
        gap.addProperty("name", name);
        gap.addProperty("from", from);
        gap.addProperty("to", to);
        gap.addProperty("skipped", to - from + 1);
        JsonObject response = new JsonObject();
        response.add("gap", gap);
        return envelope(r, response, sent, finish);
    }

    public static JsonObject error(int status, String message) {
        JsonObject error = new JsonObject();
        error.addProperty("status", status);
        error.addProperty("message", message);
        JsonObject body = new JsonObject();
        body.add("error", error);
        return body;
    }

    /** GET /timestamp: client is the query parameter if it was an integer, else null. */
    public static JsonObject timestamp(Long client, long server) {
        JsonObject timestamp = new JsonObject();
        if (client == null) {
            timestamp.add("client", com.google.gson.JsonNull.INSTANCE);
        } else {
            timestamp.addProperty("client", client);
        }
        timestamp.addProperty("server", server);
        JsonObject body = new JsonObject();
        body.add("timestamp", timestamp);
        return body;
    }

    private static JsonObject envelope(PushRequest r, JsonObject response, long sent, int finish) {
        return envelope(r.spec().echo(), r.created(), response, sent, r.start(), finish);
    }

    /** Every record's shape: what answered, the request as parsed, its timings and the open counts. */
    static JsonObject envelope(JsonObject echo, long created, JsonObject response, long sent, int start, int finish) {
        JsonObject record = new JsonObject();
        record.add("response", response);
        record.add("request", echo);
        record.add("timings", timings(sent, created));
        JsonObject connections = new JsonObject();
        connections.addProperty("start", start);
        connections.addProperty("finish", finish);
        record.add("connections", connections);
        return record;
    }

    private static JsonObject timings(long sent, long created) {
        JsonObject timings = new JsonObject();
        timings.addProperty("duration", sent - created);
        timings.addProperty("sent", sent);
        timings.addProperty("created", created);
        return timings;
    }
}
