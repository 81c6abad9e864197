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
//   at OP_CONNECT;
// - the source port is named by bind(), taken in turn from the kernel's ephemeral range
//   (/proc/sys/net/ipv4/ip_local_port_range), instead of left to connect(): connect() searches that range
//   for a port whose four-tuple is free, checking candidate after candidate against the established
//   connections, and with 10,000 and more connections to one server address and port (connect() tries
//   the even half of the range first) that search was 70% of the engine's CPU (docs/engine.md "Tomcat 6
//   long polls"). bind() to a named port is one lookup. A port in use (by any socket, a TIME_WAIT among
//   them) is skipped; after SKIPS_AT_MOST in a row the kernel picks, as before.

import java.io.IOException;
import java.net.BindException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

final class Dial {
  private Dial() {}

  /** Ports in use skipped in a row before the kernel picks the source port. */
  static final int SKIPS_AT_MOST = 8;

  /** The source ports, shared by every selector of the engine's JVM. */
  static final SourcePorts PORTS = SourcePorts.fromKernel();

  /** A non-blocking socket of the address's family with TCP_NODELAY, bound to a source port, not yet connected. */
  static SocketChannel open(InetSocketAddress address) throws IOException {
    boolean v4 = address.getAddress() instanceof Inet4Address;
    SocketChannel ch = v4 ? SocketChannel.open(StandardProtocolFamily.INET) : SocketChannel.open();
    try {
      ch.configureBlocking(false);
      ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
      PORTS.bind(ch, v4);
    } catch (IOException | RuntimeException e) {
      ch.close();
      throw e;
    }
    return ch;
  }

  /** The ephemeral port range, taken in turn from a random start (so engines on one host seldom meet). */
  static final class SourcePorts {
    private static final InetAddress ANY4 = anyIpv4();
    final int low;
    final int high;
    private final AtomicInteger next;

    SourcePorts(int low, int high) {
      this.low = low;
      this.high = high;
      this.next = new AtomicInteger(ThreadLocalRandom.current().nextInt(high - low + 1));
    }

    /** The kernel's range, or Linux's default 32768-60999 when it cannot be read. */
    static SourcePorts fromKernel() {
      try {
        String[] f = Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).trim().split("\\s+");
        int low = Integer.parseInt(f[0]);
        int high = Integer.parseInt(f[1]);
        if (low >= 1024 && high > low && high <= 65535) return new SourcePorts(low, high);
      } catch (IOException | RuntimeException e) {
        // the default below
      }
      return new SourcePorts(32768, 60999);
    }

    int take() {
      return low + Math.floorMod(next.getAndIncrement(), high - low + 1);
    }

    /** Binds ch (any local address) to the next free port of the range; leaves it unbound after SKIPS_AT_MOST ports in use. */
    void bind(SocketChannel ch, boolean v4) throws IOException {
      for (int i = 0; i < SKIPS_AT_MOST; i++) {
        int port = take();
        try {
          ch.bind(v4 ? new InetSocketAddress(ANY4, port) : new InetSocketAddress(port));
          return;
        } catch (BindException inUse) {
          // the next port
        }
      }
    }

    private static InetAddress anyIpv4() {
      try {
        return InetAddress.getByAddress(new byte[4]);
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    }
  }

  /**
   * Starts ch's connect to address: true when the connection is established on return (at once, or found
   * so by one finishConnect() right after), false while it is pending (wait for OP_CONNECT).
   */
  static boolean connect(SocketChannel ch, InetSocketAddress address) throws IOException {
    return ch.connect(address) || ch.finishConnect();
  }
}
