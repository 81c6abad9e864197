package pushbench.jmeter;

// JUnit of TLS on the selector (TlsLink, TlsConfig; issue #49, docs/engine.md "TLS") against the JDK's
// SSLServerSocket (TlsServer) with certificates of targets/tls/make-certs.sh: the handshake on a
// non-blocking channel, an answer whose records are split across reads (the server writes it in 7-byte
// pieces), one larger than the read buffer (records left in the link when the buffer is full: more()),
// the server's close_notify ending a body read to the close, session resumption on a second connection,
// each failure named (untrusted, wrong host name, expired), insecure accepting a self-signed certificate,
// and the engine itself: an https SSE subscription whose events reach the stream log, the handshakes
// counted, and a TLS failure's E line naming its kind; the publisher publishing to an https:// URL.

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TlsLinkTest {
  private static final String REQUEST = "GET /x HTTP/1.1\r\nHost: localhost\r\n\r\n";
  @TempDir Path dir;
  private TlsServer server;
  private final TlsLink.Scratch scratch = new TlsLink.Scratch();
  private final List<Selector> selectors = new ArrayList<>();

  @AfterEach
  void stop() throws IOException {
    StreamLog.closeAll();
    if (server != null) server.close();
    for (Selector s : selectors) s.close();
  }

  private static TlsConfig trusting() throws Exception {
    return new TlsConfig(TlsServer.Certs.pem("ca.pem"), false, null);
  }

  /** A client link: the TCP connect, then the handshake driven by a selector until done (or it throws). */
  private Client connect(TlsConfig cfg, String host) throws Exception {
    Selector sel = Selector.open();
    selectors.add(sel);
    SocketChannel ch = SocketChannel.open(new InetSocketAddress("127.0.0.1", server.port()));
    ch.configureBlocking(false);
    SelectionKey key = ch.register(sel, SelectionKey.OP_READ);
    TlsLink link = new TlsLink(cfg.engine(host, server.port()), ch, scratch);
    long until = System.nanoTime() + 10_000_000_000L;
    while (!link.handshake()) {
      key.interestOps(SelectionKey.OP_READ | (link.wantsWrite() ? SelectionKey.OP_WRITE : 0));
      sel.select(200);
      sel.selectedKeys().clear();
      assertTrue(System.nanoTime() < until, "handshake within 10 s");
    }
    return new Client(link, sel, key);
  }

  /** A connected link and what it read. */
  record Client(TlsLink link, Selector sel, SelectionKey key) {
    void send(String text) throws IOException {
      ByteBuffer b = ByteBuffer.wrap(text.getBytes(StandardCharsets.ISO_8859_1));
      assertEquals(b.remaining(), link.write(b), "all of the request consumed");
      while (!link.flushed()) {
        key.interestOps(SelectionKey.OP_WRITE);
        sel.select(200);
        sel.selectedKeys().clear();
        link.flush();
      }
      key.interestOps(SelectionKey.OP_READ);
    }

    /** Reads until `want` bytes or the end; [bytes, reads that left records (more), 1 if the end was read]. */
    Object[] read(int want) throws IOException {
      ByteArrayOutputStream got = new ByteArrayOutputStream();
      ByteBuffer dst = ByteBuffer.allocate(MuxEngine.READ_BUFFER);
      int mores = 0;
      boolean end = false;
      long until = System.nanoTime() + 20_000_000_000L;
      while (got.size() < want && System.nanoTime() < until) {
        dst.clear();
        int n = link.read(dst);
        if (n < 0) {
          end = true;
          break;
        }
        got.write(dst.array(), 0, n);
        if (link.more()) {
          mores++;
          continue;   // the selector would not say so: read again at once
        }
        if (n == 0) {
          sel.select(200);
          sel.selectedKeys().clear();
        }
      }
      return new Object[] {got.toByteArray(), mores, end ? 1 : 0};
    }
  }

  private static byte[] body(int n) {
    byte[] b = new byte[n];
    for (int i = 0; i < n; i++) b[i] = (byte) ('a' + (i * 7 + i / 1000) % 26);
    return b;
  }

  @Test
  void anAnswerSplitIntoSmallRecordsAcrossReadsArrivesWhole() throws Exception {
    byte[] body = body(3000);
    server = new TlsServer("server.pem", "server.key", false, head -> {
      List<byte[]> pieces = new ArrayList<>();
      byte[] all = TlsServer.ascii("HTTP/1.1 200 OK\r\nContent-Length: " + body.length + "\r\n\r\n" + new String(body, StandardCharsets.ISO_8859_1));
      for (int i = 0; i < all.length; i += 7) pieces.add(java.util.Arrays.copyOfRange(all, i, Math.min(all.length, i + 7)));
      return pieces;
    });
    Client c = connect(trusting(), "127.0.0.1");
    assertTrue(c.link().handshaken() && c.link().handshakeMicros > 0, "the handshake done and timed");
    c.send(REQUEST);
    String head = "HTTP/1.1 200 OK\r\nContent-Length: 3000\r\n\r\n";
    Object[] r = c.read(head.length() + body.length);
    byte[] got = (byte[]) r[0];
    assertEquals(head, new String(got, 0, head.length(), StandardCharsets.ISO_8859_1));
    assertArrayEquals(body, java.util.Arrays.copyOfRange(got, head.length(), got.length), "every byte, in order");
    assertEquals(REQUEST, server.requests.get(0), "the request went through the link");
  }

  @Test
  void anAnswerLargerThanTheReadBufferIsReadAcrossItsRecordsAndCloseNotifyEndsIt() throws Exception {
    byte[] body = body(1 << 20);
    server = new TlsServer("server.pem", "server.key", false, head -> List.of(
        TlsServer.ascii("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n"), body));   // read to the close
    Client c = connect(trusting(), "localhost");
    c.send(REQUEST);
    String head = "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n";
    Object[] r = c.read(Integer.MAX_VALUE);
    byte[] got = (byte[]) r[0];
    assertEquals(head.length() + body.length, got.length, "the whole answer");
    assertArrayEquals(body, java.util.Arrays.copyOfRange(got, head.length(), got.length));
    assertTrue((int) r[1] > 0, "records were left in the link when the read buffer was full (more), read without the selector");
    assertEquals(1, (int) r[2], "the server's close_notify ends the body (-1)");
  }

  @Test
  void aSecondConnectionResumesTheSession() throws Exception {
    server = new TlsServer("server.pem", "server.key", false, head -> List.of(TlsServer.ascii("HTTP/1.1 204 No Content\r\n\r\n")));
    TlsConfig cfg = trusting();
    Client first = connect(cfg, "localhost");
    first.send(REQUEST);   // TLS 1.3 hands its session ticket after the handshake: read it with the answer
    first.read("HTTP/1.1 204 No Content\r\n\r\n".length());
    assertTrue(!first.link().resumed(), "a first handshake is a full one");
    Client second = connect(cfg, "localhost");
    assertTrue(second.link().resumed(), "the context's session cache resumed it (" + second.link().session().getProtocol() + ")");
  }

  @Test
  void eachFailureIsNamed() throws Exception {
    server = new TlsServer("self.pem", "self.key", false, head -> List.of());
    SSLException untrusted = assertThrows(SSLException.class, () -> connect(trusting(), "127.0.0.1"));
    assertEquals(TlsLink.UNTRUSTED, TlsLink.failureKind(untrusted), untrusted.toString());
    Client insecure = connect(new TlsConfig(null, true, "wrong.example"), "127.0.0.1");
    assertTrue(insecure.link().handshaken(), "insecure: a self-signed certificate and any name accepted");
    insecure.link().close();
    server.close();

    server = new TlsServer("server.pem", "server.key", false, head -> List.of());
    SSLException wrongName = assertThrows(SSLException.class, () -> connect(new TlsConfig(TlsServer.Certs.pem("ca.pem"), false, "wrong.example"), "127.0.0.1"));
    assertEquals(TlsLink.WRONG_NAME, TlsLink.failureKind(wrongName), wrongName.toString());
    SSLException noCa = assertThrows(SSLException.class, () -> connect(new TlsConfig(null, false, null), "127.0.0.1"));
    assertEquals(TlsLink.UNTRUSTED, TlsLink.failureKind(noCa), "the JDK's trust store does not hold the test CA: " + noCa);
    server.close();

    server = new TlsServer("expired.pem", "server.key", false, head -> List.of());
    SSLException expired = assertThrows(SSLException.class, () -> connect(trusting(), "127.0.0.1"));
    assertEquals(TlsLink.EXPIRED, TlsLink.failureKind(expired), expired.toString());
    assertEquals(null, TlsLink.failureKind(new java.net.ConnectException("Connection refused")), "not a TLS failure");
  }

  @Test
  void aServerThatClosesDuringTheHandshakeEndsItAtOnce() throws Exception {
    try (java.net.ServerSocket plain = new java.net.ServerSocket(0, 5, java.net.InetAddress.getByName("127.0.0.1"))) {
      Thread closer = new Thread(() -> {
        try (java.net.Socket s = plain.accept()) {
          s.getInputStream().read(new byte[16384]);   // the ClientHello read, then the end (a FIN, no reset)
        } catch (IOException ignored) {
          // the test reports
        }
      });
      closer.start();
      Selector sel = Selector.open();
      selectors.add(sel);
      SocketChannel ch = SocketChannel.open(new InetSocketAddress("127.0.0.1", plain.getLocalPort()));
      ch.configureBlocking(false);
      SelectionKey key = ch.register(sel, SelectionKey.OP_READ);
      TlsLink link = new TlsLink(trusting().engine("127.0.0.1", plain.getLocalPort()), ch, scratch);
      long t0 = System.nanoTime();
      IOException e = assertThrows(IOException.class, () -> {
        while (!link.handshake()) {
          key.interestOps(SelectionKey.OP_READ | (link.wantsWrite() ? SelectionKey.OP_WRITE : 0));
          sel.select(200);
          sel.selectedKeys().clear();
          if (System.nanoTime() - t0 > 5_000_000_000L) break;
        }
      });
      assertTrue(System.nanoTime() - t0 < 5_000_000_000L, "ended at the close, not at a timeout: " + e);
      closer.join(5000);
    }
  }

  // ---- the engine ----------------------------------------------------------------------------------------

  private static MuxConfig sse(int port, String tls, long durationMs) {
    MuxConfig c = new MuxConfig();
    c.target(TargetSpec.parse(TargetSpecTest.spec("sse", "{\"url\":\"https://127.0.0.1:" + port + "/sub/{{channel}}\"}", tls)
        .replace("\"channels\":10", "\"channels\":1")));
    c.connections = 2;
    c.durationMs = durationMs;
    c.responseTimeoutMs = 10_000;
    c.connectTimeoutMs = 5_000;
    return c;
  }

  @Test
  void theEngineSubscribesOverTlsAndNamesATlsFailureInItsELine() throws Exception {
    server = new TlsServer("server.pem", "server.key", true, head -> List.of(
        TlsServer.ascii("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n\r\n"),
        TlsServer.ascii("data: {\"seq\":1}\n\n"), new byte[0], TlsServer.ascii("data: {\"seq\":"), new byte[0],
        TlsServer.ascii("2}\n\ndata: {\"seq\":3}\n\n")));
    String ca = TlsServer.Certs.pem("ca.pem").replace("\n", "\\n");
    StreamLog log = StreamLog.of(dir, 0);
    List<MuxEngine.Interval> ivs = MuxEngineTest.run(new MuxEngine(sse(server.port(), ",\"tls\":{\"ca\":\"" + ca + "\"}", 800), 0, 1, MuxEngineTest.mono(), log));
    assertEquals(2, MuxEngineTest.sum(ivs, iv -> iv.tlsHandshakes), "one handshake per connection");
    assertEquals(0, MuxEngineTest.sum(ivs, iv -> iv.errors));
    List<String[]> lines = Logs.closedLines(dir);
    List<String> records = new ArrayList<>(Logs.records(lines));
    records.sort(null);
    assertEquals(List.of("{\"seq\":1}", "{\"seq\":1}", "{\"seq\":2}", "{\"seq\":2}", "{\"seq\":3}", "{\"seq\":3}"), records,
        "each event of both streams, split across reads");
    for (String[] e : Logs.kind(lines, "E")) assertEquals(MuxEngine.END_OF_TEST, e[9]);
    assertTrue(server.requests.get(0).startsWith("GET /sub/run1-e1-0 HTTP/1.1\r\nHost: 127.0.0.1:" + server.port()), server.requests.get(0));
    String summary = MuxSampler.tlsText(ivs.get(0));
    assertTrue(summary.startsWith(", tls handshakes "), summary);

    StreamLog.closeAll();
    Path bad = dir.resolve("bad");
    java.nio.file.Files.createDirectories(bad);
    StreamLog badLog = StreamLog.of(bad, 0);
    ivs = MuxEngineTest.run(new MuxEngine(sse(server.port(), ",\"tls\":{\"ca\":\"" + ca + "\",\"serverName\":\"wrong.example\"}", 500),
        0, 1, MuxEngineTest.mono(), badLog));
    assertTrue(MuxEngineTest.sum(ivs, iv -> iv.errors) >= 2, "both connections failed");
    List<String[]> failed = Logs.kind(Logs.closedLines(bad), "E");
    assertEquals(TlsLink.WRONG_NAME, failed.get(0)[10], "the E line's failure names the kind");
    assertTrue(failed.get(0)[3].startsWith("Non HTTP response code: javax.net.ssl."), failed.get(0)[3]);
    assertTrue(MuxSampler.tlsText(ivs.get(0)).contains(TlsLink.WRONG_NAME + ": "), MuxSampler.tlsText(ivs.get(0)));
  }

  @Test
  void thePublisherPublishesOverTls() throws Exception {
    server = new TlsServer("server.pem", "server.key", false, head -> List.of(
        TlsServer.ascii("HTTP/1.1 201 Created\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}")));
    String ca = TlsServer.Certs.pem("ca.pem").replace("\n", "\\n");
    String json = TargetSpecTest.spec("sse", "{\"url\":\"https://127.0.0.1:1/sub/{{channel}}\"}", ",\"tls\":{\"ca\":\"" + ca + "\"}")
        .replace("http://127.0.0.1:18480/pub/", "https://localhost:" + server.port() + "/pub/")
        .replace("\"channels\":10", "\"channels\":1").replace("\"rate\":1", "\"rate\":10").replace("\"drainMs\":2000", "\"drainMs\":100");
    StreamLog log = StreamLog.of(dir, 0);
    TargetPublisher p = new TargetPublisher(TargetSpec.parse(json), MuxEngineTest.mono(), 600, 5000, 10_000, log);
    p.start();
    assertTrue(p.await(5000), "ended by itself after the window");
    assertEquals(5, p.ended.get(), "due every 100 ms before 600 - 100 ms");
    assertEquals(0, p.failed.get());
    for (String[] e : Logs.kind(Logs.closedLines(dir), "E")) assertEquals("201", e[3]);
    assertEquals(5, server.requests.size(), "a new TLS connection for each (the server closes them)");
    assertTrue(server.requests.get(0).startsWith("POST /pub/run1-e1-0 HTTP/1.1\r\nHost: localhost:" + server.port()), server.requests.get(0));
  }
}
