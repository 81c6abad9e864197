package pushbench.core;

import com.google.gson.JsonArray;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import java.io.IOException;
import java.math.BigDecimal;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The whole shared instrumentation of one webapp (study figure 1): time stamper, log manager, event
 * manager and request manager, plus the answers of every endpoint except the held POST /request, whose
 * I/O belongs to the container-specific handler. One instance per webapp, created in the servlet's init()
 * and shut down in destroy().
 */
public final class Instrumentation {
    /** Emit cycles write to thousands of sockets; a few threads let emitters of different names overlap. */
    public static final int EMITTER_THREADS = 4;
    public static final int TIMER_THREADS = 2;
    /** The cap on event emitters when the system property pb.maxEmitters (PB_MAX_EMITTERS) is not a whole number >= 1. */
    public static final int DEFAULT_MAX_EMITTERS = 16;

    private final Clock clock;
    private final LogManager log = new LogManager();
    private final ScheduledThreadPoolExecutor emitterThreads;
    private final ScheduledThreadPoolExecutor timerThreads;
    private final EventManager events;
    private final RequestManager requests;
    private final Bodies bodies;
    private final Streams streams;

    public Instrumentation() {
        this(Clock.SYSTEM);
    }

    public Instrumentation(Clock clock) {
        this(clock, maxEmittersFrom(System.getProperty("pb.maxEmitters")));
    }

    public Instrumentation(Clock clock, int maxEmitters) {
        this(clock, maxEmitters, Bodies.fromSystemProperties());
    }

    public Instrumentation(Clock clock, int maxEmitters, Bodies bodies) {
        this(clock, maxEmitters, bodies, Streams.fromSystemProperties());
    }

    public Instrumentation(Clock clock, int maxEmitters, Bodies bodies, Streams streams) {
        this.clock = clock;
        this.bodies = bodies;
        this.streams = streams;
        emitterThreads = executor(EMITTER_THREADS, "pushbench-emitter");
        timerThreads = executor(TIMER_THREADS, "pushbench-timer");
        Subscriptions subscriptions = new Subscriptions();
        events = new EventManager(subscriptions, emitterThreads, clock, log, maxEmitters);
        requests = new RequestManager(subscriptions, timerThreads, streams, clock, log);
    }

    /** The cap from its setting: a whole number from 1 to 999999, else {@link #DEFAULT_MAX_EMITTERS}. */
    static int maxEmittersFrom(String raw) {
        String text = raw == null ? "" : raw.trim();
        return text.matches("[1-9][0-9]{0,5}") ? Integer.parseInt(text) : DEFAULT_MAX_EMITTERS;
    }

    private static ScheduledThreadPoolExecutor executor(int threads, String prefix) {
        AtomicInteger count = new AtomicInteger();
        ThreadFactory factory = runnable -> {
            Thread thread = new Thread(runnable, prefix + "-" + count.incrementAndGet());
            thread.setDaemon(true);
            // Not the webapp's class loader: Tomcat worker threads started from these threads (e.g. by
            // AsyncContext.complete()) inherit it, and Tomcat reports them as leaked when the webapp stops.
            thread.setContextClassLoader(Instrumentation.class.getClassLoader().getParent());
            return thread;
        };
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(threads, factory);
        // Answered polls cancel their timeouts: drop them from the queue at once instead of at their due time.
        executor.setRemoveOnCancelPolicy(true);
        return executor;
    }

    public LogManager log() {
        return log;
    }

    public EventManager events() {
        return events;
    }

    public RequestManager requests() {
        return requests;
    }

    /** The rules for receiving request bodies, and their counts. */
    public Bodies bodies() {
        return bodies;
    }

    /** The SSE and WebSocket streams' settings and writers. */
    public Streams streams() {
        return streams;
    }

    /**
     * The answer of every endpoint but REQUEST. {@code clientParam} is /timestamp's query parameter
     * (may be null), {@code body} the request body (empty for GET).
     */
    public Answer answer(Endpoint endpoint, String clientParam, byte[] body) {
        if (log.enabled()) {
            log.info("received " + endpoint.method() + " " + endpoint.path());
        }
        try {
            switch (endpoint) {
                case TIMESTAMP:
                    return Answer.ok(Records.timestamp(integerOrNull(clientParam), clock.millis()));
                case STATUS:
                    return Answer.ok(status());
                case LOGGING:
                    return Answer.ok(logging(Validation.logging(body)));
                case EVENT_SET:
                    return Answer.ok(eventSet(body));
                case EVENT_REMOVE:
                    return Answer.ok(eventRemove(body));
                case EVENT_PUBLISH:
                    return Answer.ok(eventPublish(body));
                case EVENT_CLEAR:
                    Validation.clear(body);
                    return Answer.ok(clear());
                default:
                    throw new IllegalArgumentException(endpoint + " is answered by the handler");
            }
        } catch (BadInput e) {
            return e.toAnswer();
        }
    }

    /** Validates a POST /request body; the handler then prepares its response and calls {@link #open}. */
    public PushSpec pushSpec(byte[] body) throws BadInput {
        return Validation.pushRequest(body);
    }

    /** The container's part of holding a POST /request: prepare its response, then {@link #open} it. */
    public interface Holder {
        void hold(PushSpec spec) throws IOException;
    }

    /**
     * Every endpoint once its body is read: the answer to send, or null when the request is held (a valid
     * comet or poll, handed to {@code holder}). A pull, and a POST /request the rules refuse, are answered.
     */
    public Answer handle(Endpoint endpoint, String clientParam, byte[] body, Holder holder) throws IOException {
        if (endpoint != Endpoint.REQUEST) {
            return answer(endpoint, clientParam, body);
        }
        PushSpec spec;
        try {
            spec = pushSpec(body);
        } catch (BadInput e) {
            return e.toAnswer();
        }
        if (spec.isPull()) {
            return requests.pull(spec);
        }
        holder.hold(spec);
        return null;
    }

    /** Runs a task on the core's timer threads after a delay (a WebSocket's subscription deadline). */
    public ScheduledFuture<?> later(Runnable task, long delayMillis) {
        return timerThreads.schedule(task, delayMillis, TimeUnit.MILLISECONDS);
    }

    public PushRequest open(PushSpec spec, RequestObserver observer) {
        return requests.open(spec, observer);
    }

    /** Webapp stop: emitters stop, every open request gets a shutdown clear record, threads end. */
    public void shutdown() {
        events.clear();
        requests.shutdown();
        streams.shutdown();
        emitterThreads.shutdownNow();
        timerThreads.shutdownNow();
        try {
            emitterThreads.awaitTermination(5, TimeUnit.SECONDS);
            timerThreads.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private JsonObject logging(boolean enabled) {
        log.setEnabled(enabled);
        JsonObject logging = new JsonObject();
        logging.addProperty("enabled", enabled);
        JsonObject body = new JsonObject();
        body.add("logging", logging);
        return body;
    }

    private JsonObject eventSet(byte[] body) throws BadInput {
        String name = Validation.eventName(body);
        long frequency = Validation.frequency(body);
        String state = events.set(name, frequency);
        if (EventManager.FULL.equals(state)) {
            throw new BadInput(409, "too many event emitters: at most " + events.maxEmitters()
                    + " at once (PB_MAX_EMITTERS); remove or clear one first");
        }
        JsonObject event = new JsonObject();
        event.addProperty("name", name);
        event.addProperty("frequency", frequency);
        event.addProperty("state", state);
        JsonObject answer = new JsonObject();
        answer.add("event", event);
        return answer;
    }

    private JsonObject eventRemove(byte[] body) throws BadInput {
        String name = Validation.eventName(body);
        if (!events.remove(name)) {
            throw new BadInput(404, "no event named " + name);
        }
        JsonObject event = new JsonObject();
        event.addProperty("name", name);
        event.addProperty("state", "removed");
        JsonObject answer = new JsonObject();
        answer.add("event", event);
        return answer;
    }

    private JsonObject eventPublish(byte[] body) throws BadInput {
        String name = Validation.eventName(body);
        long cycle = events.publish(name, Validation.publishData(body));
        JsonObject event = new JsonObject();
        event.addProperty("name", name);
        event.addProperty("cycle", cycle);
        event.addProperty("published", true);
        JsonObject answer = new JsonObject();
        answer.add("event", event);
        return answer;
    }

    private JsonObject clear() {
        int stopped = events.clear();
        int completed = requests.clearAll("clear");
        JsonObject clear = new JsonObject();
        clear.addProperty("events", stopped);
        clear.addProperty("requests", completed);
        JsonObject answer = new JsonObject();
        answer.add("clear", clear);
        return answer;
    }

    JsonObject status() {
        JsonObject counts = new JsonObject();
        counts.addProperty("open", requests.openCount());
        counts.addProperty("comet", requests.cometCount());
        counts.addProperty("poll", requests.pollCount());
        counts.addProperty("sse", requests.count(PushSpec.Type.SSE));
        counts.addProperty("ws", requests.count(PushSpec.Type.WS));
        JsonArray list = new JsonArray();
        for (EventEmitter emitter : events.list()) {
            JsonObject event = new JsonObject();
            event.addProperty("name", emitter.name());
            event.addProperty("frequency", emitter.frequency());
            event.addProperty("cycle", emitter.cycle());
            long[] lastCycle = emitter.lastCycle();
            if (lastCycle == null) {
                event.add("lastCycle", JsonNull.INSTANCE);
            } else {
                JsonObject last = new JsonObject();
                last.addProperty("total", lastCycle[0]);
                last.addProperty("durationMicros", lastCycle[1]);
                event.add("lastCycle", last);
            }
            list.add(event);
        }
        JsonObject status = new JsonObject();
        status.add("requests", counts);
        status.addProperty("logging", log.enabled());
        status.add("events", list);
        status.add("bodies", bodies.status());
        status.add("streams", streams.status());
        return status;
    }

    /** /timestamp's client parameter as a number: an integer within a long, else null. */
    static Long integerOrNull(String value) {
        if (value == null || value.isEmpty() || value.length() > 40) {
            return null;
        }
        try {
            BigDecimal number = new BigDecimal(value.trim());
            return number.longValueExact();
        } catch (NumberFormatException | ArithmeticException e) {
            return null;
        }
    }
}
