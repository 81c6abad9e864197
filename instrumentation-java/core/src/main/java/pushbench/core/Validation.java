package pushbench.core;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/** The input rules of docs/protocol.md; every violation becomes a BadInput with status 400. */
public final class Validation {
    public static final int MAX_EVENTS = 16;
    public static final long MIN_FREQUENCY = 10;
    public static final long MAX_FREQUENCY = 3_600_000;
    public static final long MIN_DURATION = 1;
    public static final long MAX_DURATION = 3_600_000;
    /** A pull cursor's cycle ids: 0 to 2^53 - 1 (what every JSON reader holds exactly). */
    public static final long MAX_CYCLE = 9_007_199_254_740_991L;
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,64}");

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

    /** POST /event/clear takes an empty body or any JSON object. */
    public static void clear(byte[] body) throws BadInput {
        if (body.length > 0 && !isBlank(body)) {
            object(body);
        }
    }

    /** POST /request. */
    public static PushSpec pushRequest(byte[] body) throws BadInput {
        JsonObject request = object(body);
        JsonElement typeField = request.get("type");
        PushSpec.Type type;
        if (isString(typeField, "comet")) {
            type = PushSpec.Type.COMET;
        } else if (isString(typeField, "poll")) {
            type = PushSpec.Type.POLL;
        } else if (isString(typeField, "pull")) {
            type = PushSpec.Type.PULL;
        } else {
            throw bad("type must be \"comet\", \"poll\" or \"pull\"");
        }
        JsonElement eventsField = request.get("events");
        if (eventsField == null || !eventsField.isJsonArray()) {
            throw bad("events must be an array of event names");
        }
        JsonArray array = eventsField.getAsJsonArray();
        if (array.size() > MAX_EVENTS) {
            throw bad("events may hold at most " + MAX_EVENTS + " names");
        }
        List<String> events = new ArrayList<>(array.size());
        for (JsonElement name : array) {
            events.add(name(name, "each event name"));
        }
        Long duration = integer(request.get("duration"), MIN_DURATION, MAX_DURATION);
        if (type == PushSpec.Type.POLL && duration == null) {
            throw bad("duration must be an integer from " + MIN_DURATION + " to " + MAX_DURATION + " ms");
        }
        // Comet and pull have no maximum hold: the duration is ignored, never a reason to reject (a load plan
        // may send a placeholder); a valid one is kept only to be echoed.
        Map<String, Long> cursor = type == PushSpec.Type.PULL ? cursor(request.get("cursor")) : null;
        return new PushSpec(type, events, duration, cursor);
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
