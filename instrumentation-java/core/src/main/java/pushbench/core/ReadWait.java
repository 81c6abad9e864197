package pushbench.core;

import java.io.IOException;
import java.net.Socket;

/**
 * How long one blocking read of a request's socket may wait for bytes, as the container keeps it (Tomcat's
 * connectionTimeout unless changed): the handle through which {@link BodyReader} bounds each read by what
 * is left of the body deadline, and through which a refused body's rest is left unread. Each container
 * reaches its socket its own way (TomcatReach); where it cannot, {@link #NONE} leaves the connector's own
 * timeout in charge.
 */
public interface ReadWait {
    /** The wait in ms; 0 or less: none (a read waits for ever). */
    int current() throws IOException;

    void set(int millis) throws IOException;

    /** Waits for body bytes after a refused body's answer: none, so the container's read of its rest ends at once. */
    int REFUSED_REST_WAIT_MILLIS = 1;

    /**
     * After a refused body's answer is flushed: the container must not wait for the unread rest (Tomcat
     * reads and drops it before the next request, a wait a slow client could stretch for ever). By
     * default the wait is cut, so that read ends at once and the connection closes; a container with a
     * better way (Tomcat 7: no read of the rest at all) overrides this.
     */
    default void leaveRestUnread() throws IOException {
        set(REFUSED_REST_WAIT_MILLIS);
    }

    /** No handle on the socket: reads wait as the connector says, and the body deadline is checked between them. */
    ReadWait NONE = new ReadWait() {
        @Override
        public int current() {
            return 0;
        }

        @Override
        public void set(int millis) {
            // nothing to set
        }
    };

    /** A blocking connector's socket: its SO_TIMEOUT. */
    static ReadWait of(Socket socket) {
        return new ReadWait() {
            @Override
            public int current() throws IOException {
                return socket.getSoTimeout();
            }

            @Override
            public void set(int millis) throws IOException {
                socket.setSoTimeout(millis);
            }
        };
    }
}
