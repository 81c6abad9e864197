package pushbench.core;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The input rules of docs/protocol.md (control bodies, POST /request, an SSE query and its Last-Event-ID,
 * a WebSocket's subscription); every violation becomes a BadInput with status 400.
 */
public final class Validation {
    public static final int MAX_EVENTS = 16;
    public static final long MIN_FREQUENCY = 10;
    public static final long MAX_FREQUENCY = 3_600_000;
    public static final long MIN_DURATION = 1;
    public static final long MAX_DURATION = 3_600_000;
    /** A pull cursor's cycle ids: 0 to 2^53 - 1 (what every JSON reader holds exactly). */
    public static final long MAX_CYCLE = 9_007_199_254_740_991L;
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,64}");
    /** One pair of a Last-Event-ID: an event name and a cycle id. */
    private static final Pattern CURSOR_PAIR = Pattern.compile("([A-Za-z0-9_-]{1,64}):(0|[1-9][0-9]{0,15})");
    /** The types POSTed to /request. */
    private static final Set<PushSpec.Type> POSTED = EnumSet.of(PushSpec.Type.COMET, PushSpec.Type.POLL, PushSpec.Type.PULL);

    private Validation() {
    }

    /** POST /logging: {"enabled": boolean}. */
    public static boolean logging(byte[] body) throws BadInput {
        JsonElement enabled = object(body).get("enabled");
        if (enabled == null || !enabled.isJsonPrimitive() || !enabled.getAsJsonPrimitive().isBoolean()) {
            throw bad("enabled must be true or false");
        }
        return enabled.getAsBoolean();
    }

    /** POST /event/set: the validated name (frequency via {@link #frequency}). */
    public static String eventName(byte[] body) throws BadInput {
        return name(object(body).get("name"), "name");
    }

    public static long frequency(byte[] body) throws BadInput {
        Long frequency = integer(object(body).get("frequency"), MIN_FREQUENCY, MAX_FREQUENCY);
        if (frequency == null) {
            throw bad("frequency must be an integer from " + MIN_FREQUENCY + " to " + MAX_FREQUENCY + " ms");
        }
        return frequency;
    }

    /**
     * POST /event/publish's data: any JSON value, or null when the body has none (a JSON null is given
     * data: JsonNull). The body must be an object (its name is checked by {@link #eventName}).
     */
    public static JsonElement publishData(byte[] body) throws BadInput {
        JsonObject object = object(body);
        return object.has("data") ? object.get("data") : null;
    }

    /** POST /event/clear takes an empty body or any JSON object. */
    public static void clear(byte[] body) throws BadInput {
        if (body.length > 0 && !isBlank(body)) {
            object(body);
        }
    }

    /** POST /request: comet, poll or pull. */
    public static PushSpec pushRequest(byte[] body) throws BadInput {
        return subscription(object(body), POSTED, "type must be \"comet\", \"poll\" or \"pull\"");
    }

    /** A WebSocket's first message: {"type":"ws","events":[..],"cursor":{..}?}, echoed as parsed. */
    public static PushSpec wsSubscription(byte[] message) throws BadInput {
        return subscription(object(message), EnumSet.of(PushSpec.Type.WS), "this connection is a WebSocket: type must be \"ws\"");
    }

    /**
     * The rules every subscription sent as JSON shares: {@code taken} the types asked for this way,
     * {@code unknown} the message for any other type (one asked for elsewhere also says where).
     */
    private static PushSpec subscription(JsonObject request, Set<PushSpec.Type> taken, String unknown) throws BadInput {
        JsonElement typeField = request.get("type");
        PushSpec.Type type = typeOf(typeField);
        if (type == null || !taken.contains(type)) {
            throw bad(type == null ? unknown : unknown + " (" + askedFor(type) + ")");
        }
        JsonElement eventsField = request.get("events");
        if (eventsField == null || !eventsField.isJsonArray()) {
            throw bad("events must be an array of event names");
        }
        JsonArray array = eventsField.getAsJsonArray();
        List<String> events = new ArrayList<>(array.size());
        for (JsonElement name : array) {
            events.add(name instanceof JsonPrimitive && ((JsonPrimitive) name).isString() ? name.getAsString() : null);
        }
        checkNames(events, "each event name");
        Long duration = integer(request.get("duration"), MIN_DURATION, MAX_DURATION);
        if (type == PushSpec.Type.POLL && duration == null) {
            throw bad("duration must be an integer from " + MIN_DURATION + " to " + MAX_DURATION + " ms");
        }
        // Only a poll is held for a duration: elsewhere it is ignored, never a reason to reject (a load plan
        // may send a placeholder); a valid one is kept only to be echoed.
        boolean resumable = type == PushSpec.Type.PULL || type == PushSpec.Type.WS;
        Map<String, Long> cursor = resumable ? cursor(request.get("cursor")) : null;
        return new PushSpec(type, events, duration, cursor);
    }

    /**
     * GET /request's query as an SSE subscription (docs/protocol.md "Server-Sent Events"): {@code types} and
     * {@code eventLists} the values of its type and events parameters (null: absent); {@code lastEventId}
     * the header that resumes it (null or empty: none). Echo: {"type":"sse","events":[..],"cursor":{..}?}.
     */
    public static PushSpec sseQuery(String[] types, String[] eventLists, String lastEventId) throws BadInput {
        if (types == null || types.length != 1) {
            throw bad("GET /request takes one type=sse (comet, poll and pull are POST /request)");
        }
        PushSpec.Type type = typeOf(new JsonPrimitive(types[0]));
        if (type != PushSpec.Type.SSE) {
            throw bad(type == null ? "unknown transport: GET /request takes type=sse" : askedFor(type));
        }
        if (eventLists == null || eventLists.length != 1) {
            throw bad("events must be given once: a comma-separated list of event names");
        }
        List<String> events = eventLists[0].isEmpty() ? new ArrayList<>() : Arrays.asList(eventLists[0].split(",", -1));
        checkNames(events, "each event name");
        return new PushSpec(type, events, null, lastEventId(lastEventId));
    }

    /**
     * A Last-Event-ID (an SSE stream's id: name:cycle pairs joined by ",") as a cursor, the shape a pull's
     * and a WebSocket's cursor have; null when absent or empty.
     */
    static Map<String, Long> lastEventId(String header) throws BadInput {
        if (header == null || header.isEmpty()) {
            return null;
        }
        String[] pairs = header.split(",", -1);
        if (pairs.length > MAX_EVENTS) {
            throw bad("Last-Event-ID may name at most " + MAX_EVENTS + " events");
        }
        Map<String, Long> cursor = new LinkedHashMap<>();
        for (String pair : pairs) {
            Matcher match = CURSOR_PAIR.matcher(pair.trim());
            if (!match.matches() || Long.parseLong(match.group(2)) > MAX_CYCLE
                    || cursor.put(match.group(1), Long.parseLong(match.group(2))) != null) {
                throw bad("Last-Event-ID must be the id of an event of this server: name:cycle pairs joined by \",\"");
            }
        }
        return cursor;
    }

    /** The type a JSON "type" names, or null for none of the protocol's. */
    private static PushSpec.Type typeOf(JsonElement value) {
        for (PushSpec.Type type : PushSpec.Type.values()) {
            if (isString(value, type.name().toLowerCase(Locale.ROOT))) {
                return type;
            }
        }
        return null;
    }

    /** Where a transport is asked for, for the refusal of one asked for the wrong way. */
    private static String askedFor(PushSpec.Type type) {
        switch (type) {
            case SSE:
                return "type sse is GET /request?type=sse&events=<names>";
            case WS:
                return "type ws is a WebSocket upgrade of GET /request";
            default:
                return "type " + type.name().toLowerCase(Locale.ROOT) + " is POST /request";
        }
    }

    /** 0 to MAX_EVENTS names, each by the name rule (null: not a string). */
    private static void checkNames(List<String> events, String field) throws BadInput {
        if (events.size() > MAX_EVENTS) {
            throw bad("events may hold at most " + MAX_EVENTS + " names");
        }
        for (String name : events) {
            if (name == null || !NAME.matcher(name).matches()) {
                throw bad(field + " must be 1-64 characters of A-Z a-z 0-9 _ -");
            }
        }
    }

    /** A pull's cursor: absent (null), or an object of at most MAX_EVENTS names to cycle ids. */
    static Map<String, Long> cursor(JsonElement value) throws BadInput {
        if (value == null) {
            return null;
        }
        if (!value.isJsonObject()) {
            throw bad("cursor must be an object of event name -> cycle id");
        }
        JsonObject object = value.getAsJsonObject();
        if (object.size() > MAX_EVENTS) {
            throw bad("cursor may hold at most " + MAX_EVENTS + " names");
        }
        Map<String, Long> cursor = new LinkedHashMap<>();
        for (Map.Entry<String, JsonElement> entry : object.entrySet()) {
            String name = name(new JsonPrimitive(entry.getKey()), "each cursor name");
            Long cycle = integer(entry.getValue(), 0, MAX_CYCLE);
            if (cycle == null) {
                throw bad("each cursor value must be a cycle id, an integer >= 0");
            }
            cursor.put(name, cycle);
        }
        return cursor;
    }

    static JsonObject object(byte[] body) throws BadInput {
        JsonElement value = Json.parse(body);
        if (!value.isJsonObject()) {
            throw bad("body must be a JSON object");
        }
        return value.getAsJsonObject();
    }

    static String name(JsonElement value, String field) throws BadInput {
        if (value == null || !value.isJsonPrimitive() || !value.getAsJsonPrimitive().isString()
                || !NAME.matcher(value.getAsString()).matches()) {
            throw bad(field + " must be 1-64 characters of A-Z a-z 0-9 _ -");
        }
        return value.getAsString();
    }

    /** An integral JSON number within [min, max] (3000 and 3000.0 alike), else null. */
    static Long integer(JsonElement value, long min, long max) {
        if (value == null || !value.isJsonPrimitive() || !value.getAsJsonPrimitive().isNumber()) {
            return null;
        }
        BigDecimal number;
        try {
            number = new BigDecimal(value.getAsJsonPrimitive().getAsString());
        } catch (NumberFormatException e) {
            return null;
        }
        if (number.compareTo(BigDecimal.valueOf(min)) < 0 || number.compareTo(BigDecimal.valueOf(max)) > 0) {
            return null;
        }
        if (number.signum() != 0 && number.stripTrailingZeros().scale() > 0) {
            return null;
        }
        return number.longValue();
    }

    private static boolean isString(JsonElement value, String expected) {
        return value instanceof JsonPrimitive && ((JsonPrimitive) value).isString()
                && expected.equals(value.getAsString());
    }

    private static boolean isBlank(byte[] body) {
        for (byte b : body) {
            if (b != ' ' && b != '\t' && b != '\r' && b != '\n') {
                return false;
            }
        }
        return true;
    }

    private static BadInput bad(String message) {
        return new BadInput(400, message);
    }
}
