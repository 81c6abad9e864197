package pushbench.core;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonElement;
import com.google.gson.JsonParseException;
import com.google.gson.TypeAdapter;
import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonToken;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;

/** Strict JSON parsing and compact writing with Gson. */
public final class Json {
    // Nulls are part of the protocol ("client": null, "lastCycle": null).
    // HTML escaping would turn '=' or '<' in echoed names into \u003d; the protocol has no use for it.
    private static final Gson GSON = new GsonBuilder().disableHtmlEscaping().serializeNulls().create();
    private static final TypeAdapter<JsonElement> ELEMENT = GSON.getAdapter(JsonElement.class);

    private Json() {
    }

    /**
     * Parses a whole body as one JSON value. The reader is strict (Gson's JsonParser would be lenient and
     * accept unquoted names or single quotes) and must reach the end of the document. Malformed UTF-8
     * becomes U+FFFD. The body is decoded whole (it is at most 16 KiB): an InputStreamReader would
     * allocate an 8 KiB decoding buffer for every request, a tenth of Tomcat 6's allocation under load.
     */
    public static JsonElement parse(byte[] body) throws BadInput {
        try (JsonReader reader = new JsonReader(new StringReader(new String(body, StandardCharsets.UTF_8)))) {
            reader.setLenient(false);
            JsonElement value = ELEMENT.read(reader);
            if (reader.peek() != JsonToken.END_DOCUMENT) {
                throw new BadInput(400, "malformed JSON: data after the value");
            }
            return value;
        } catch (IOException | JsonParseException | IllegalStateException | NumberFormatException e) {
            throw new BadInput(400, "malformed JSON");
        }
    }

    public static String write(JsonElement value) {
        return GSON.toJson(value);
    }
}
