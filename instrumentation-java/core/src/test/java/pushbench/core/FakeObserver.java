package pushbench.core;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/** Records every write and completion, and flags any overlapping write or write after completion. */
final class FakeObserver implements RequestObserver {
    final List<String> writes = new ArrayList<>(); // guarded by this
    final AtomicInteger completions = new AtomicInteger();
    final AtomicInteger inWrite = new AtomicInteger();
    volatile boolean overlapped;
    volatile boolean wroteAfterEnd;
    volatile boolean failWrites;
    volatile CountDownLatch blockFirstWrite;
    volatile CountDownLatch enteredWrite;
    volatile PushRequest request;
    /** Set by a test after abandon() returned: any write from then on is a write after completion. */
    volatile boolean abandoned;
    /** What {@link #timeoutGraceMillis()} answers: a handler whose container times polls out itself. */
    volatile long grace;
    /** What {@link #timeoutTickMillis()} answers. */
    volatile long tick;
    /** Streams: how often the core cut the connection, and why it was cleared. */
    final AtomicInteger aborts = new AtomicInteger();
    volatile String clearedFor;

    @Override
    public void write(String text) throws IOException {
        if (inWrite.incrementAndGet() > 1) {
            overlapped = true;
        }
        try {
            if (completions.get() > 0 || abandoned) {
                wroteAfterEnd = true;
            }
            CountDownLatch block = blockFirstWrite;
            if (block != null) {
                blockFirstWrite = null;
                enteredWrite.countDown();
                try {
                    block.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            if (failWrites) {
                throw new IOException("client gone");
            }
            synchronized (this) {
                writes.add(text);
            }
        } finally {
            inWrite.decrementAndGet();
        }
    }

    @Override
    public void complete() {
        completions.incrementAndGet();
    }

    @Override
    public void abort() {
        aborts.incrementAndGet();
    }

    @Override
    public void clearing(String reason) {
        clearedFor = reason;
    }

    @Override
    public long timeoutGraceMillis() {
        return grace;
    }

    @Override
    public long timeoutTickMillis() {
        return tick;
    }

    synchronized List<JsonObject> records() {
        List<JsonObject> records = new ArrayList<>();
        for (String text : writes) {
            records.add(JsonParser.parseString(text).getAsJsonObject());
        }
        return records;
    }

    synchronized int writeCount() {
        return writes.size();
    }
}
