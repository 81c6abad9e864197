package pushbench.jmeter;

// JUnit of the mux engine's connect path (Dial) against real sockets on 127.0.0.1: an IPv4 address gets an
// IPv4 socket; a loopback connect is established when Dial.connect returns (no OP_CONNECT round trip), every
// time; a refused one throws there, as at OP_CONNECT; a connect that cannot complete at once (a server whose
// accept queue is full drops its SYN) is pending, not an error. A reconnect (Dial.reconnect) takes the next
// port of its range in turn, skips a port in use, gives up a port whose four-tuple is taken (EADDRNOTAVAIL)
// for the next one, and after PORTS_TRIED_AT_MOST lets the kernel pick; closed by the engine (registered
// with a selector, as the engine's are), a bound socket leaves nothing on its port, where an unbound one
// closed the same way leaves a TIME_WAIT.

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.BindException;
import java.net.ConnectException;
import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;

class DialTest {
  @Test
  void aLoopbackConnectIsEstablishedWhenConnectReturnsEveryTime() throws Exception {
    try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.INET)) {
      server.bind(new InetSocketAddress("127.0.0.1", 0), 1024);
      InetSocketAddress address = new InetSocketAddress("127.0.0.1", server.socket().getLocalPort());
      for (int i = 0; i < 200; i++) {
        try (SocketChannel ch = Dial.open(address)) {
          assertFalse(ch.isBlocking());
          assertTrue(ch.getOption(StandardSocketOptions.TCP_NODELAY));
          assertTrue(Dial.connect(ch, address), "connect " + i + " established on return");
          assertTrue(ch.isConnected());
          assertTrue(ch.getLocalAddress() instanceof InetSocketAddress local && local.getAddress() instanceof Inet4Address,
              "an IPv4 socket for an IPv4 address");
          ch.write(ByteBuffer.wrap("ping".getBytes(StandardCharsets.US_ASCII)));   // the request goes out at once
          try (SocketChannel accepted = server.accept()) {
            ByteBuffer in = ByteBuffer.allocate(4);
            while (in.hasRemaining()) accepted.read(in);
            assertEquals("ping", new String(in.array(), StandardCharsets.US_ASCII));
          }
        }
      }
    }
  }

  @Test
  void aRefusedConnectThrowsFromConnect() throws Exception {
    int port;
    try (ServerSocketChannel closed = ServerSocketChannel.open(StandardProtocolFamily.INET)) {
      closed.bind(new InetSocketAddress("127.0.0.1", 0));
      port = closed.socket().getLocalPort();
    }
    InetSocketAddress address = new InetSocketAddress("127.0.0.1", port);
    try (SocketChannel ch = Dial.open(address)) {
      assertThrows(ConnectException.class, () -> Dial.connect(ch, address));
    }
  }

  @Test
  void aConnectionToItselfIsRefused() throws Exception {
    // Bound to the port it connects to, nothing listening there: the kernel completes the connect as a TCP
    // simultaneous open of the socket with itself, as it does when its own pick of a source port is that port.
    int p = twoFreePorts();
    InetSocketAddress address = new InetSocketAddress("127.0.0.1", p);
    try (SocketChannel ch = Dial.open(address)) {
      ch.bind(address);
      ConnectException e = assertThrows(ConnectException.class, () -> {   // as the engine takes it: connect, then finishConnect
        long until = System.nanoTime() + 2_000_000_000L;
        Dial.connect(ch, address);
        while (!Dial.finishConnect(ch) && System.nanoTime() < until) Thread.onSpinWait();
      });
      assertEquals("Connection refused (connected to itself: nothing listens on /127.0.0.1:" + p + ")", e.getMessage());
    }
  }

  @Test
  void aReconnectNeverBindsTheServersPort() throws Exception {
    int p = twoFreePorts();   // p and p + 1 free, nothing listening on p
    InetSocketAddress address = new InetSocketAddress("127.0.0.1", p);
    ConnectException e = assertThrows(ConnectException.class, () -> Dial.reconnect(address, new Dial.SourcePorts(p, p + 1, 0)).close());
    assertFalse(e.getMessage() != null && e.getMessage().contains("itself"), "p skipped, refused from p + 1: " + e.getMessage());
  }

  @Test
  void aConnectTheServerDoesNotAnswerYetIsPending() throws Exception {
    try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.INET)) {
      server.bind(new InetSocketAddress("127.0.0.1", 0), 1);   // never accepts: its queue fills, then SYNs are dropped
      InetSocketAddress address = new InetSocketAddress("127.0.0.1", server.socket().getLocalPort());
      java.util.List<SocketChannel> opened = new java.util.ArrayList<>();
      try {
        boolean pending = false;
        for (int i = 0; i < 8 && !pending; i++) {
          SocketChannel ch = Dial.open(address);
          opened.add(ch);
          pending = !Dial.connect(ch, address);
          if (pending) assertTrue(ch.isConnectionPending(), "pending: the engine waits for OP_CONNECT");
        }
        assertTrue(pending, "a connect the full accept queue drops is pending, not an error");
      } finally {
        for (SocketChannel ch : opened) ch.close();
      }
    }
  }

  // ---- reconnects: a source port of Dial's ----------------------------------------------------------------

  private static int localPort(SocketChannel ch) throws java.io.IOException {
    return ((InetSocketAddress) ch.getLocalAddress()).getPort();
  }

  /**
   * A port p of the kernel's range with p and p + 1 free now (bind() without SO_REUSEADDR succeeds on both),
   * sought from a random start over the whole range: after a run of thousands of connections one half of
   * the range may be all TIME_WAITs (connect() takes even ports, bind(0) odd ones).
   */
  private static int twoFreePorts() throws Exception {
    Dial.SourcePorts range = Dial.SourcePorts.fromKernel();
    int span = range.high - range.low;
    int from = java.util.concurrent.ThreadLocalRandom.current().nextInt(span);
    for (int i = 0; i < span; i++) {
      int p = range.low + (from + i) % span;
      if (free(p) && free(p + 1)) return p;
    }
    throw new IllegalStateException("no two free ports in a row in " + range.low + "-" + range.high);
  }

  /** bind() of port on any address without SO_REUSEADDR: true when no socket holds it, a TIME_WAIT included. */
  private static boolean free(int port) throws Exception {
    try (SocketChannel probe = SocketChannel.open(StandardProtocolFamily.INET)) {
      probe.bind(new InetSocketAddress(port));
      return true;
    } catch (BindException inUse) {
      return false;
    }
  }

  /** The states (hex, /proc/net/tcp) of the IPv4 sockets from local port port to remote port to. */
  private static java.util.List<String> states(int port, int to) throws Exception {
    String local = String.format(":%04X", port);
    String remote = String.format(":%04X", to);
    java.util.List<String> states = new java.util.ArrayList<>();
    for (String line : Files.readAllLines(Path.of("/proc/net/tcp"))) {
      String[] f = line.trim().split("\\s+");
      if (f.length > 3 && f[1].endsWith(local) && f[2].endsWith(remote)) states.add(f[3]);
    }
    return states;
  }

  @Test
  void aReconnectTakesTheNextPortOfItsRangeInTurn() throws Exception {
    try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.INET)) {
      server.bind(new InetSocketAddress("127.0.0.1", 0), 64);
      InetSocketAddress address = new InetSocketAddress("127.0.0.1", server.socket().getLocalPort());
      int p = twoFreePorts();
      Dial.SourcePorts ports = new Dial.SourcePorts(p, p + 1, 0);
      try (SocketChannel first = Dial.reconnect(address, ports);
          SocketChannel second = Dial.reconnect(address, ports)) {
        assertEquals(p, localPort(first), "the range's first port");
        assertEquals(p + 1, localPort(second), "then the next");
        assertTrue(first.isConnected() && second.isConnected(), "a loopback connect is established on return");
        assertFalse(first.isBlocking());
        assertTrue(first.getOption(StandardSocketOptions.TCP_NODELAY));
        assertEquals(0, first.getOption(StandardSocketOptions.SO_LINGER), "closed with a reset");
        assertTrue(first.getOption(StandardSocketOptions.SO_REUSEADDR));
      }
    }
  }

  @Test
  void aReconnectSkipsAPortInUse() throws Exception {
    try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.INET);
        SocketChannel holder = SocketChannel.open(StandardProtocolFamily.INET)) {
      server.bind(new InetSocketAddress("127.0.0.1", 0), 64);
      InetSocketAddress address = new InetSocketAddress("127.0.0.1", server.socket().getLocalPort());
      int p = twoFreePorts();
      holder.bind(new InetSocketAddress(p));   // no SO_REUSEADDR: the port is its own
      try (SocketChannel ch = Dial.reconnect(address, new Dial.SourcePorts(p, p + 1, 0))) {
        assertEquals(p + 1, localPort(ch), "the port in use skipped");
        assertTrue(ch.isConnected());
      }
    }
  }

  @Test
  void aReconnectWhoseFourTupleIsTakenTriesTheNextPortThenTheKernelPicks() throws Exception {
    try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.INET);
        SocketChannel holder = SocketChannel.open(StandardProtocolFamily.INET)) {
      server.bind(new InetSocketAddress("127.0.0.1", 0), 64);
      InetSocketAddress address = new InetSocketAddress("127.0.0.1", server.socket().getLocalPort());
      int p = twoFreePorts();
      holder.setOption(StandardSocketOptions.SO_REUSEADDR, true);
      holder.bind(new InetSocketAddress(p));
      holder.connect(address);   // (127.0.0.1:p, the server) is taken
      try (SocketChannel same = SocketChannel.open(StandardProtocolFamily.INET)) {   // what a reconnect on p meets
        same.setOption(StandardSocketOptions.SO_REUSEADDR, true);
        same.bind(new InetSocketAddress(p));
        BindException e = assertThrows(BindException.class, () -> same.connect(address), "EADDRNOTAVAIL at connect()");
        assertTrue(e.getMessage().contains("Cannot assign requested address"), e.getMessage());
      }
      Dial.SourcePorts ports = new Dial.SourcePorts(p, p + 1, 0);
      try (SocketChannel ch = Dial.reconnect(address, ports)) {
        assertEquals(p + 1, localPort(ch), "bound to p, refused at connect(), then the next port");
        assertTrue(ch.isConnected());
      }
      Dial.SourcePorts onlyTaken = new Dial.SourcePorts(p, p, 0);
      try (SocketChannel ch = Dial.reconnect(address, onlyTaken)) {
        assertTrue(ch.isConnected(), "the kernel's port after " + Dial.PORTS_TRIED_AT_MOST + " tried");
        assertTrue(localPort(ch) != p);
        assertEquals(-1, ch.getOption(StandardSocketOptions.SO_LINGER), "a socket of the kernel's choice, as open()'s");
      }
    }
  }

  @Test
  void aBoundReconnectClosedByTheEngineLeavesNothingOnItsPortWhereAKernelPickedOneLeavesATimeWait() throws Exception {
    try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.INET);
        Selector selector = Selector.open()) {
      server.bind(new InetSocketAddress("127.0.0.1", 0), 64);
      InetSocketAddress address = new InetSocketAddress("127.0.0.1", server.socket().getLocalPort());
      int p = twoFreePorts();
      int bound = engineClose(Dial.reconnect(address, new Dial.SourcePorts(p, p, 0)), server, selector);
      assertEquals(p, bound);
      assertEquals(java.util.List.of(), states(bound, address.getPort()), "no socket left from the bound port");
      assertTrue(free(bound), "bind() without SO_REUSEADDR takes it again at once");
      SocketChannel plain = Dial.open(address);
      Dial.connect(plain, address);
      int picked = engineClose(plain, server, selector);
      assertEquals(java.util.List.of("06"), states(picked, address.getPort()), "a FIN close leaves its TIME_WAIT (06)");
      assertFalse(free(picked));
    }
  }

  // ch, connected: registered with selector (as the engine's channels are), a byte each way, closed by this
  // side first (the key cancelled, the channel closed, the selector's next select deregisters it), then the
  // server's side; returns ch's port.
  private static int engineClose(SocketChannel ch, ServerSocketChannel server, Selector selector) throws Exception {
    int port = localPort(ch);
    try (SocketChannel accepted = server.accept()) {
      SelectionKey key = ch.register(selector, SelectionKey.OP_READ);
      ch.write(ByteBuffer.wrap(new byte[] {1}));
      accepted.write(ByteBuffer.wrap(new byte[] {2}));
      ByteBuffer in = ByteBuffer.allocate(1);
      while (in.hasRemaining()) accepted.read(in);
      in.clear();
      while (in.hasRemaining()) ch.read(in);
      key.cancel();
      ch.close();
      selector.selectNow();
      Thread.sleep(50);   // the server side reads the end (or the reset)
    }
    Thread.sleep(50);
    return port;
  }
}
