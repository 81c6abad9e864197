package pushbench.tomcat7;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import javax.servlet.AsyncContext;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import pushbench.core.LogManager;
import pushbench.core.Validation;

/** The vanished-client probe on real loopback sockets (the server side non-blocking, as in Tomcat's NIO). */
class ClientProbeTest {
    private ServerSocketChannel listener;
    private SocketChannel client;
    private SocketChannel server;

    @BeforeEach
    void connect() throws Exception {
        listener = ServerSocketChannel.open();
        listener.bind(new InetSocketAddress("127.0.0.1", 0));
        client = SocketChannel.open(listener.getLocalAddress());
        server = listener.accept();
        server.configureBlocking(false);
    }

    @AfterEach
    void close() throws Exception {
        client.close();
        server.close();
        listener.close();
    }

    private AsyncRequestMonitor monitor(FakeHttp http) throws Exception {
        HttpServletResponse response = http.response();
        HttpServletRequest request = http.request(response);
        AsyncContext async = request.startAsync();
        AsyncRequestMonitor monitor = new AsyncRequestMonitor(async, response, new LogManager());
        monitor.begin(Validation.pushRequest("{\"type\":\"poll\",\"events\":[],\"duration\":60000}".getBytes()), request);
        monitor.probeWith(server);
        return monitor;
    }

    private static void idle() throws InterruptedException {
        Thread.sleep(AsyncRequestMonitor.PROBE_IDLE_NANOS / 1_000_000 + 100);
    }

    @Test
    void aLiveIdleClientIsNotGoneAndAClosedOneIs() throws Exception {
        AsyncRequestMonitor monitor = monitor(new FakeHttp("POST", "/request", null, null));
        idle();
        assertFalse(monitor.probeClientGone());
        client.close();
        Thread.sleep(50);
        assertTrue(monitor.probeClientGone());
    }

    @Test
    void noProbeOnceTheRequestIsCompleted() throws Exception {
        FakeHttp http = new FakeHttp("POST", "/request", null, null);
        AsyncRequestMonitor monitor = monitor(http);
        monitor.complete();
        client.write(ByteBuffer.wrap("GET /next HTTP/1.1\r\n".getBytes(StandardCharsets.US_ASCII)));
        client.close();
        idle();
        assertFalse(monitor.probeClientGone(), "probed a socket that belongs to Tomcat again");
        ByteBuffer next = ByteBuffer.allocate(64);
        assertEquals(20, server.read(next), "the probe consumed bytes of the next request");
        assertEquals(1, http.completes.get());
    }

    @Test
    void aClientThatSendsEarlyIsNotProbedAgainAndItsPollClosesTheConnection() throws Exception {
        FakeHttp http = new FakeHttp("POST", "/request", null, null);
        AsyncRequestMonitor monitor = monitor(http);
        client.write(ByteBuffer.wrap(new byte[] {'G'}));
        idle();
        assertFalse(monitor.probeClientGone());
        client.close();
        Thread.sleep(50);
        assertFalse(monitor.probeClientGone());
        monitor.write("{}");
        assertEquals("close", http.headers.get("Connection"));
    }
}
