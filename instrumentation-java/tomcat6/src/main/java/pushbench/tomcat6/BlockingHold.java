package pushbench.tomcat6;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import javax.servlet.ServletOutputStream;
import javax.servlet.http.HttpServletResponse;
import pushbench.core.PushRequest;
import pushbench.core.PushSpec;
import pushbench.core.RequestObserver;

/**
 * tc6-bio (issue #23 item 2, the study's RQ2: a blocking connector): on Tomcat 6's blocking HTTP/1.1
 * connector (Http11Protocol) a CometProcessor gets no events, only service(), so a held request is held
 * on its container thread: {@link CometPushServlet#service} opens it with this observer and blocks in
 * {@link #await} until the core completes it (an event to a poll, its timeout, clear, shutdown, or a
 * write that found the client gone). One held connection is one blocked thread, as the blocking model is.
 *
 * Writes come from the core's emitter and timer threads while the container thread waits: they are
 * serialized by the core (one request's writes never overlap) and happen before {@link #complete}, which
 * releases the container thread; the response is the container's again only after that. A client that
 * leaves an idle held request is noticed at the next write (a blocking socket gives no other sign).
 */
final class BlockingHold implements RequestObserver {
    private final HttpServletResponse response;
    private final PushSpec spec;
    private final CountDownLatch done = new CountDownLatch(1);
    private ServletOutputStream out; // written under the core's per-request lock only

    BlockingHold(HttpServletResponse response, PushSpec spec) {
        this.response = response;
        this.spec = spec;
    }

    /** Comet: status and headers go out at once; the body is chunked, one line per record. */
    void beginStream() throws IOException {
        response.setStatus(HttpServletResponse.SC_OK);
        response.setContentType(Exchange.NDJSON);
        response.flushBuffer();
    }

    @Override
    public void write(String text) throws IOException {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        if (out == null) {
            if (!spec.isComet()) {
                response.setStatus(HttpServletResponse.SC_OK);
                response.setContentType("application/json");
                response.setContentLength(bytes.length);
            }
            out = response.getOutputStream();
        }
        out.write(bytes);
        out.flush();
    }

    @Override
    public void complete() {
        done.countDown();
    }

    /**
     * Blocks the container thread until the request is complete. An interrupt (the container stopping
     * its threads) abandons the request: the core forgets it and writes nothing more.
     */
    void await(PushRequest request) {
        try {
            done.await();
        } catch (InterruptedException e) {
            request.abandon();
            Thread.currentThread().interrupt();
        }
    }
}
