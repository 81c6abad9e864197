package pushbench.tomcat6;

import java.io.ByteArrayOutputStream;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import javax.servlet.ServletInputStream;
import javax.servlet.ServletOutputStream;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import org.apache.catalina.CometEvent;

/**
 * One Comet connection as Tomcat 6's NIO connector presents it, from dynamic proxies: the test sets the
 * event type and feeds body bytes; reads return -1 when nothing has arrived yet, as Tomcat's do.
 */
final class FakeComet {
    final String method;
    final String uri;
    final String query;
    final int contentLength;
    final Map<String, Object> attributes = new HashMap<>();
    /** The request's headers and query parameters (an SSE subscription, an upgrade). */
    final Map<String, String> requestHeaders = new HashMap<>();
    final Map<String, String[]> parameters = new HashMap<>();
    private byte[] pending = new byte[0];
    private int pendingPos;

    volatile CometEvent.EventType type = CometEvent.EventType.BEGIN;
    volatile CometEvent.EventSubType subType;
    int status = 200;
    final Map<String, String> headers = new HashMap<>();
    final ByteArrayOutputStream written = new ByteArrayOutputStream();
    final AtomicInteger closes = new AtomicInteger();
    final AtomicInteger flushes = new AtomicInteger();
    volatile Integer timeout;
    /** Runs inside CometEvent.close(), before it returns: lets a test stand in for a slow finishResponse(). */
    volatile Runnable onClose;
    final CometEvent event;

    FakeComet(String method, String uri, String query, int contentLength) {
        this.method = method;
        this.uri = uri;
        this.query = query;
        this.contentLength = contentLength;
        HttpServletResponse response = response();
        HttpServletRequest request = request();
        event = (CometEvent) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {CometEvent.class},
                (proxy, m, args) -> {
                    switch (m.getName()) {
                        case "getHttpServletRequest":
                            return request;
                        case "getHttpServletResponse":
                            return response;
                        case "getEventType":
                            return type;
                        case "getEventSubType":
                            return subType;
                        case "close":
                            Runnable hook = onClose;
                            if (hook != null) {
                                hook.run();
                            }
                            closes.incrementAndGet();
                            return null;
                        case "setTimeout":
                            timeout = (Integer) args[0];
                            return null;
                        default:
                            throw new UnsupportedOperationException(m.getName());
                    }
                });
    }

    /** Bytes that have arrived on the connection (read by the next READ event). */
    synchronized void arrive(String text) {
        pending = text.getBytes(StandardCharsets.UTF_8);
        pendingPos = 0;
    }

    synchronized String text() {
        return new String(written.toByteArray(), StandardCharsets.UTF_8);
    }

    private HttpServletRequest request() {
        ServletInputStream in = new ServletInputStream() {
            @Override
            public int read() {
                synchronized (FakeComet.this) {
                    return pendingPos < pending.length ? pending[pendingPos++] & 0xff : -1;
                }
            }

            @Override
            public int read(byte[] b, int off, int len) {
                synchronized (FakeComet.this) {
                    int n = Math.min(len, pending.length - pendingPos);
                    if (n <= 0) {
                        return -1;
                    }
                    System.arraycopy(pending, pendingPos, b, off, n);
                    pendingPos += n;
                    return n;
                }
            }

            @Override
            public int available() {
                synchronized (FakeComet.this) {
                    return pending.length - pendingPos;
                }
            }
        };
        return (HttpServletRequest) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {HttpServletRequest.class}, (proxy, m, args) -> {
                    switch (m.getName()) {
                        case "getMethod":
                            return method;
                        case "getRequestURI":
                            return uri;
                        case "getContextPath":
                            return "";
                        case "getParameter":
                            return "client".equals(args[0]) ? query : null;
                        case "getContentLength":
                            return contentLength;
                        case "getHeader":
                            return requestHeaders.get(args[0]);
                        case "getHeaders":
                            return Collections.enumeration(requestHeaders.containsKey(args[0])
                                    ? Collections.singletonList(requestHeaders.get(args[0])) : Collections.emptyList());
                        case "getParameterValues":
                            return parameters.get(args[0]);
                        case "getInputStream":
                            return in;
                        case "getAttribute":
                            return attributes.get(args[0]);
                        case "setAttribute":
                            attributes.put((String) args[0], args[1]);
                            return null;
                        default:
                            throw new UnsupportedOperationException(m.getName());
                    }
                });
    }

    private HttpServletResponse response() {
        ServletOutputStream out = new ServletOutputStream() {
            @Override
            public void write(int b) {
                synchronized (FakeComet.this) {
                    written.write(b);
                }
            }

            @Override
            public void flush() {
                flushes.incrementAndGet();
            }
        };
        return (HttpServletResponse) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {HttpServletResponse.class}, (proxy, m, args) -> {
                    switch (m.getName()) {
                        case "setStatus":
                            status = (Integer) args[0];
                            return null;
                        case "setContentType":
                            headers.put("Content-Type", (String) args[0]);
                            return null;
                        case "setContentLength":
                            headers.put("Content-Length", String.valueOf(args[0]));
                            return null;
                        case "setHeader":
                            headers.put((String) args[0], (String) args[1]);
                            return null;
                        case "getOutputStream":
                            return out;
                        case "flushBuffer":
                            flushes.incrementAndGet();
                            return null;
                        default:
                            throw new UnsupportedOperationException(m.getName());
                    }
                });
    }
}
