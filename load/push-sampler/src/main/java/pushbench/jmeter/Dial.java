package pushbench.jmeter;

// How the mux engine opens a connection (issue #48 item 2): a server that ends its connection after each
// answer (Tomcat 6's long polls answered by an event say Connection: close: docs/engine.md "Connections
// per answer") costs the engine a TCP connect per answer, so the connect path is kept to its fewest
// system calls and selector round trips:
// - the socket is of the address's own family: an IPv4 address gets an IPv4 socket, not the JDK's default
//   dual-stack IPv6 socket that maps it (its creation and close do IPv6 work for nothing);
// - a non-blocking connect returns before the handshake is done, but on loopback (and wherever the peer's
//   SYN-ACK is processed before the connect call returns) the socket is already connected by then: one
//   finishConnect() right after it finds that out, so such a connection is registered for reading and its
//   request written at once, without an OP_CONNECT registration, a selector wake-up and an interest change.
//   A connect still pending after it goes the usual way (OP_CONNECT); a refused one throws here as it would
//   at OP_CONNECT.

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.channels.SocketChannel;

final class Dial {
  private Dial() {}

  /** A non-blocking socket of the address's family with TCP_NODELAY, not yet connected. */
  static SocketChannel open(InetSocketAddress address) throws IOException {
    SocketChannel ch = address.getAddress() instanceof Inet4Address
        ? SocketChannel.open(StandardProtocolFamily.INET) : SocketChannel.open();
    try {
      ch.configureBlocking(false);
      ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
    } catch (IOException | RuntimeException e) {
      ch.close();
      throw e;
    }
    return ch;
  }

  /**
   * Starts ch's connect to address: true when the connection is established on return (at once, or found
   * so by one finishConnect() right after), false while it is pending (wait for OP_CONNECT).
   */
  static boolean connect(SocketChannel ch, InetSocketAddress address) throws IOException {
    return ch.connect(address) || ch.finishConnect();
  }
}
