package pushbench.tomcat7;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import javax.servlet.AsyncContext;
import javax.servlet.AsyncListener;
import javax.servlet.ServletInputStream;
import javax.servlet.ServletOutputStream;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;

/** Just enough of a Servlet 3.0 container, built from dynamic proxies, to drive the servlet in a test. */
final class FakeHttp {
    final String method;
    final String uri;
    final String query;
    final byte[] body;
    final Integer contentLength;
    /** The request's headers and query parameters (an SSE subscription, an upgrade). */
    final Map<String, String> requestHeaders = new HashMap<>();
    final Map<String, String[]> parameters = new HashMap<>();

    int status = 200;
    final Map<String, String> headers = new HashMap<>();
    final ByteArrayOutputStream written = new ByteArrayOutputStream();
    final AtomicInteger flushes = new AtomicInteger();
    boolean committed;
    /** The body came with the request's head (available() says so), or is still on its way. */
    boolean arrived = true;

    boolean asyncStarted;
    long asyncTimeout = -1;
    final List<AsyncListener> listeners = new ArrayList<>();
    final AtomicInteger completes = new AtomicInteger();

    FakeHttp(String method, String uri, String query, String body) {
        this(method, uri, query, body, null);
    }

    FakeHttp(String method, String uri, String query, String body, Integer contentLength) {
        this.method = method;
        this.uri = uri;
        this.query = query;
        this.body = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
        this.contentLength = contentLength;
    }

    synchronized String text() {
        return new String(written.toByteArray(), StandardCharsets.UTF_8);
    }

    HttpServletResponse response() {
        ServletOutputStream out = new ServletOutputStream() {
            @Override
            public void write(int b) {
                synchronized (FakeHttp.this) {
                    committed = true;
                    written.write(b);
                }
            }

            @Override
            public void flush() {
                flushes.incrementAndGet();
                committed = true;
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
                            committed = true;
                            return null;
                        case "isCommitted":
                            return committed;
                        default:
                            throw new UnsupportedOperationException(m.getName());
                    }
                });
    }

    HttpServletRequest request(HttpServletResponse response) {
        ByteArrayInputStream bytes = new ByteArrayInputStream(body);
        ServletInputStream in = new ServletInputStream() {
            @Override
            public int read() {
                return bytes.read();
            }

            @Override
            public int available() {
                return arrived ? bytes.available() : 0;
            }
        };
        HttpServletRequest[] self = new HttpServletRequest[1];
        AsyncContext async = (AsyncContext) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {AsyncContext.class}, (proxy, m, args) -> {
                    switch (m.getName()) {
                        case "addListener":
                            listeners.add((AsyncListener) args[0]);
                            return null;
                        case "setTimeout":
                            asyncTimeout = (Long) args[0];
                            return null;
                        case "complete":
                            // Like Tomcat: a second complete() is an illegal state.
                            if (completes.incrementAndGet() > 1) {
                                throw new IllegalStateException("asyncComplete() not valid");
                            }
                            return null;
                        case "getRequest":
                            return self[0];
                        case "getResponse":
                            return response;
                        default:
                            throw new UnsupportedOperationException(m.getName());
                    }
                });
        self[0] = (HttpServletRequest) Proxy.newProxyInstance(getClass().getClassLoader(),
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
                        case "getParameterValues":
                            return parameters.get(args[0]);
                        case "getHeader":
                            return requestHeaders.get(args[0]);
                        case "getHeaders":
                            return Collections.enumeration(requestHeaders.containsKey(args[0])
                                    ? Collections.singletonList(requestHeaders.get(args[0])) : Collections.emptyList());
                        case "getContentLength":
                            return contentLength != null ? contentLength : body.length;
                        case "getInputStream":
                            return in;
                        case "startAsync":
                            asyncStarted = true;
                            return async;
                        default:
                            throw new UnsupportedOperationException(m.getName());
                    }
                });
        return self[0];
    }
}
