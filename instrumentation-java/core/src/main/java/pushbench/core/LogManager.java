package pushbench.core;

import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The study's log manager: one line per request received, record sent and emit cycle, but only when
 * switched on with POST /logging. It is off when the server starts, because log I/O during a test run
 * would skew the measurements. Lines go to java.util.logging, which Tomcat routes to its own log.
 */
public final class LogManager {
    private static final Logger LOG = Logger.getLogger("pushbench");

    private volatile boolean enabled;

    public boolean enabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    /** Callers check {@link #enabled()} first so that no message is even built while logging is off. */
    public void info(String line) {
        if (enabled) {
            LOG.info(line);
        }
    }

    /** Faults of the server itself are always logged: they are not part of the measured traffic. */
    public void fault(String what, Throwable cause) {
        LOG.log(Level.WARNING, what, cause);
    }
}
