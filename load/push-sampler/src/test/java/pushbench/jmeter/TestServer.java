package pushbench.jmeter;

// The common part of the tests' blocking socket servers (ChunkedServer, WsServer, TlsServer, TargetRunTest's
// pub/sub server): a listening socket on the loopback address at a free port (or one a subclass made, such
// as an SSLServerSocket), an accept thread, a daemon thread per connection running the subclass's serve()
// (the connection closed when it returns or throws: a client gone away is nothing to report), and the
// reading of a request head (up to its blank line) and of a Content-Length body. close() stops accepting
// and closes every connection accepted. A subclass calls start() last in its constructor, once its own
// fields are set.

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

abstract class TestServer implements AutoCloseable {
  private final ServerSocket server;
  /** Every connection accepted, in accept order. */
  final List<Socket> sockets = new CopyOnWriteArrayList<>();
  /** How many connections were accepted; a connection's number (1-based) is this count at its accept. */
  final AtomicInteger connections = new AtomicInteger();

  /** Listens on the loopback address at a port the system picks. */
  TestServer() throws IOException {
    this(new ServerSocket(0, 50, InetAddress.getLoopbackAddress()));
  }

  /** Serves on this listening socket. */
  TestServer(ServerSocket server) {
    this.server = server;
  }

  /** Starts accepting; threads are named name-server and name-conn-n. */
  final void start(String name) {
    Thread t = new Thread(() -> acceptLoop(name), name + "-server");
    t.setDaemon(true);
    t.start();
  }

  /** Serves one accepted connection s (its streams in and out), number `connection`; it is closed on return. */
  abstract void serve(Socket s, InputStream in, OutputStream out, int connection) throws Exception;

  int port() {
    return server.getLocalPort();
  }

  private void acceptLoop(String name) {
    while (!server.isClosed()) {
      try {
        Socket s = server.accept();
        sockets.add(s);
        int n = connections.incrementAndGet();
        Thread t = new Thread(() -> serveAndClose(s, n), name + "-conn-" + n);
        t.setDaemon(true);
        t.start();
      } catch (IOException e) {
        return;
      }
    }
  }

  private void serveAndClose(Socket s, int n) {
    try (s) {
      serve(s, s.getInputStream(), s.getOutputStream(), n);
    } catch (Exception e) {
      // the client went away (or its TLS handshake failed): nothing to serve
    }
  }

  /** A request's head up to and with its blank line, as ISO-8859-1 text; null at the connection's end. */
  static String readHead(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int matched = 0;   // how much of "\r\n\r\n" the last bytes read end with
    while (matched < 4) {
      int c = in.read();
      if (c < 0) return null;
      head.write(c);
      matched = (c == (matched % 2 == 0 ? '\r' : '\n')) ? matched + 1 : (c == '\r' ? 1 : 0);
    }
    return head.toString(StandardCharsets.ISO_8859_1);
  }

  /** The body after this head: its Content-Length in bytes (none without one). */
  static byte[] readBody(InputStream in, String head) throws IOException {
    String length = header(head, "Content-Length");
    return in.readNBytes(length == null ? 0 : Integer.parseInt(length));
  }

  /** The value of a head's first header of this name (any case), trimmed; null without one. */
  static String header(String head, String name) {
    for (String line : head.split("\r\n")) {
      int colon = line.indexOf(':');
      if (colon > 0 && line.substring(0, colon).equalsIgnoreCase(name)) return line.substring(colon + 1).trim();
    }
    return null;
  }

  /** Writes text (UTF-8) and flushes it. */
  static void send(OutputStream out, String text) throws IOException {
    send(out, text.getBytes(StandardCharsets.UTF_8));
  }

  /** Writes bytes and flushes them. */
  static void send(OutputStream out, byte[] bytes) throws IOException {
    out.write(bytes);
    out.flush();
  }

  @Override
  public void close() throws IOException {
    server.close();
    for (Socket s : sockets) {
      try {
        if (s.isClosed()) continue;
        s.setSoTimeout(100);   // an SSLSocket's close waits for the peer's close_notify: not for long
        s.close();
      } catch (IOException ignored) {
        // closed anyway
      }
    }
  }
}
