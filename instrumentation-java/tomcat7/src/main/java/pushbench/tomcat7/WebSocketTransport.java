package pushbench.tomcat7;

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.servlet.ServletContext;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import javax.websocket.Extension;
import javax.websocket.server.ServerContainer;
import javax.websocket.server.ServerEndpointConfig;
import pushbench.core.BodyBuffer;
import pushbench.core.Instrumentation;
import pushbench.core.TomcatReach;

/**
 * The WebSocket transport of Tomcat 7 (docs/protocol.md "WebSocket"): a JSR-356 endpoint per connection
 * ({@link WebSocketStream}) on the ServerContainer Tomcat 7.0.109 gives every webapp. The upgrade's checks
 * are the core's ({@code Head}: the protocol's JSON refusals, 400, 404, 426); an upgrade they take is
 * handed to the container here, from the servlet, with Tomcat's WsServerContainer.doUpgrade (reached by
 * reflection: the JSR-356 API has no programmatic upgrade). No endpoint is deployed at a path, so Tomcat's
 * own upgrade filter never answers a request itself. No subprotocol, no extension (no compression);
 * messages are bounded by the request body limit (16 KiB), sessions never idle out.
 */
final class WebSocketTransport {
    static final String CONTAINER = "javax.websocket.server.ServerContainer";
    private static final Logger LOG = Logger.getLogger("pushbench");

    private final ServerContainer container;
    private final Method doUpgrade;
    private final Instrumentation inst;

    private WebSocketTransport(ServerContainer container, Method doUpgrade, Instrumentation inst) {
        this.container = container;
        this.doUpgrade = doUpgrade;
        this.inst = inst;
    }

    /** The transport on this webapp's container; null (with one warning) where Tomcat gives none. */
    static WebSocketTransport of(ServletContext context, Instrumentation inst) {
        Object attribute = context.getAttribute(CONTAINER);
        try {
            ServerContainer container = (ServerContainer) attribute;
            Method doUpgrade = container.getClass().getMethod("doUpgrade", HttpServletRequest.class,
                    HttpServletResponse.class, ServerEndpointConfig.class, Map.class);
            container.setDefaultMaxTextMessageBufferSize(BodyBuffer.LIMIT);
            container.setDefaultMaxBinaryMessageBufferSize(BodyBuffer.LIMIT);
            container.setDefaultMaxSessionIdleTimeout(0);
            return new WebSocketTransport(container, doUpgrade, inst);
        } catch (ReflectiveOperationException | RuntimeException e) {
            LOG.log(Level.WARNING, "no WebSocket container in this webapp (" + attribute + "): WebSocket upgrades "
                    + "are refused: " + e);
            return null;
        }
    }

    /** Hands an upgrade the checks took to the container; the endpoint serves the connection from then on. */
    void upgrade(HttpServletRequest request, HttpServletResponse response) throws IOException {
        WebSocketStream stream = new WebSocketStream(inst, TomcatReach.connectionOf(request));
        ServerEndpointConfig config = ServerEndpointConfig.Builder.create(WebSocketStream.class, "/request")
                .configurator(new OneEndpoint(stream)).build();
        try {
            doUpgrade.invoke(container, request, response, config, Collections.<String, String>emptyMap());
        } catch (InvocationTargetException e) {
            throw new IOException("WebSocket upgrade failed", e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IOException("WebSocket upgrade failed", e);
        }
    }

    /** The configurator of one upgrade: its own endpoint, no extension, no subprotocol. */
    private static final class OneEndpoint extends ServerEndpointConfig.Configurator {
        private final WebSocketStream stream;

        OneEndpoint(WebSocketStream stream) {
            this.stream = stream;
        }

        @Override
        public <T> T getEndpointInstance(Class<T> type) {
            return type.cast(stream);
        }

        @Override
        public List<Extension> getNegotiatedExtensions(List<Extension> installed, List<Extension> requested) {
            return Collections.emptyList();
        }

        @Override
        public String getNegotiatedSubprotocol(List<String> supported, List<String> requested) {
            return "";
        }
    }
}
