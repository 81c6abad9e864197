package pushbench.jmeter;

// JUnit of the mux engine's connect path (Dial) against real sockets on 127.0.0.1: an IPv4 address gets an
// IPv4 socket; a loopback connect is established when Dial.connect returns (no OP_CONNECT round trip), every
// time; a refused one throws there, as at OP_CONNECT; a connect that cannot complete at once (a server whose
// accept queue is full drops its SYN) is pending, not an error.

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ConnectException;
import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;

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
}
