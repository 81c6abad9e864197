package pushbench.tomcat6;

import java.util.concurrent.CountDownLatch;
import javax.servlet.http.HttpServletResponse;
import pushbench.core.HeldResponse;

/**
 * tc6-bio (issue #23 item 2, the study's RQ2: a blocking connector): on Tomcat 6's blocking HTTP/1.1
 * connector (Http11Protocol) a CometProcessor gets no events, only service(), so a held request (comet,
 * poll, SSE) is held on its container thread: {@link CometPushServlet#hold} opens it with this observer and blocks in
 * {@link #await} until the core completes it (an event to a poll, its timeout, clear, shutdown, or a
 * write that found the client gone). One held connection is one blocked thread, as the blocking model is.
 *
 * Records are written by the core's {@link HeldResponse} from the emitter and timer threads (an SSE
 * stream's: from the core's stream writers) while the
 * container thread waits, all before {@link #complete}, which releases the container thread; the response
 * is the container's again only after that. A client that leaves an idle held request is noticed at the
 * next write (a blocking socket gives no other sign).
 */
final class BlockingHold extends HeldResponse {
    private final CountDownLatch done = new CountDownLatch(1);

    BlockingHold(HttpServletResponse response) {
        super(response);
    }

    @Override
    public void complete() {
        done.countDown();
    }

    /**
     * Blocks the container thread until the request is complete. An interrupt (the container stopping
     * its threads) ends the request: the core forgets it and nothing more is written.
     */
    void await() {
        try {
            done.await();
        } catch (InterruptedException e) {
            containerEnded();
            Thread.currentThread().interrupt();
        }
    }
}
