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
// - a plain connection's reconnects after its server announced the close (Connection: close, HTTP/1.0: a
//   server that ends the connection after each answer) name their source port by bind() (reconnect()); its
//   first connect, its reconnects after anything else (a dropped stream, a failure: closed with a FIN, as a
//   browser closes) and every TLS connection keep the kernel's choice (open()). connect() left to pick searches
//   ip_local_port_range for a free four-tuple, candidate after candidate against the connections already
//   held to the same server address and port; with thousands held that search becomes most of the
//   engine's CPU (docs/engine.md "Tomcat 6 long polls at 10,000 and 15,000"). A named port is one lookup.
//   Ports are taken in turn from the kernel's range (SourcePorts, one counter per JVM from a random start);
//   a port bind() finds in use is skipped; a port whose four-tuple connect() finds taken (EADDRNOTAVAIL, a
//   BindException in Java) is given up with its socket and the next one tried; after PORTS_TRIED_AT_MOST
//   ports the kernel picks, as for a first connect;
// - a bound socket is opened with SO_LINGER 0, so every close of it, on whichever path (an answer's end, a
//   timeout, the end of the run, the JVM's exit), is a reset and leaves no TIME_WAIT. This is what makes
//   binding safe for the runs after: a port claimed by bind() gets a bind bucket that connect()'s own search
//   skips while any socket holds it (Linux __inet_hash_connect skips buckets with fastreuse >= 0), a
//   TIME_WAIT included, for its 60 s: bound sockets closed with a FIN would take their ports from the
//   kernel-picked connects of whatever runs next. A reset leaves no TIME_WAIT, so the bucket is freed with
//   the socket. TLS connections are not bound because they close with their close_notify, which a reset
//   could cut off; first connects are not bound so that held streams (closed with a FIN at the run's end)
//   keep the kernel's TIME_WAIT reuse;
// - SO_REUSEADDR is set on bound sockets. On Linux (inet_bind_conflict) it lets bind() share a port only
//   with owners that set it too and are not listening, TIME_WAITs included: here only other bound
//   reconnects, none of which leaves a TIME_WAIT; a port held by a kernel-picked or another program's
//   socket is still refused at bind() (EADDRINUSE). Sharing is harmless where the destinations differ
//   (another engine on the host to another server); where they are the same, connect() finds the
//   four-tuple taken and says so (EADDRNOTAVAIL), the case the retry on the next port is for. Without it
//   bind() would be exclusive (the retry never needed, the port skipped one step earlier), and a bound
//   socket's TIME_WAIT, were one ever left, would keep its port from the next reconnects for 60 s.
// - a connection found connected to itself is refused (notToItself): every connect of the engine, its
//   publisher and PushClient is checked once established, and a reconnect never binds the server's port.

import java.io.IOException;
import java.net.BindException;
import java.net.ConnectException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

final class Dial {
  private Dial() {}

  /** Ports a reconnect tries (in use at bind(), or its four-tuple taken at connect()) before the kernel picks. */
  static final int PORTS_TRIED_AT_MOST = 8;

  /** The source ports of reconnects, shared by every selector of the engine's JVM. */
  static final SourcePorts PORTS = SourcePorts.fromKernel();

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
   * so by one finishConnect() right after), false while it is pending (wait for OP_CONNECT). Either way the
   * caller then takes the connection through finishConnect(ch), which refuses one connected to itself.
   */
  static boolean connect(SocketChannel ch, InetSocketAddress address) throws IOException {
    return ch.connect(address) || ch.finishConnect();
  }

  /**
   * ch's connect finished: true when established, false while still pending; a ConnectException for a
   * connection to itself (notToItself). The one place an established channel's connect is judged.
   */
  static boolean finishConnect(SocketChannel ch) throws IOException {
    if (!ch.finishConnect()) return false;
    notToItself(ch.getLocalAddress(), ch.getRemoteAddress());
    return true;
  }

  /**
   * A ConnectException ("Connection refused") for a connection whose two ends are one. A connect to a port
   * of the local host that nothing listens on, from a source port equal to it (the kernel's pick from
   * ip_local_port_range, where ports that servers were given by bind(0) lie too), completes as a TCP
   * simultaneous open of the socket with itself instead of being refused; nothing listens there (a
   * listener would hold the port), so it is the refusal it stands for.
   */
  static void notToItself(SocketAddress local, SocketAddress remote) throws ConnectException {
    if (local != null && local.equals(remote)) {
      throw new ConnectException("Connection refused (connected to itself: nothing listens on " + remote + ")");
    }
  }

  /**
   * A reconnect's socket (the header): bound to the next usable port of ports, SO_REUSEADDR and SO_LINGER 0,
   * its connect to address started; after PORTS_TRIED_AT_MOST ports, open(address) with the kernel's port.
   * Established on return when isConnected(), else pending (OP_CONNECT); a refused connect throws.
   */
  static SocketChannel reconnect(InetSocketAddress address, SourcePorts ports) throws IOException {
    boolean v4 = address.getAddress() instanceof Inet4Address;
    SocketChannel ch = null;
    try {
      for (int tried = 0; tried < PORTS_TRIED_AT_MOST; tried++) {
        if (ch == null) {
          ch = open(address);
          ch.setOption(StandardSocketOptions.SO_REUSEADDR, true);
          ch.setOption(StandardSocketOptions.SO_LINGER, 0);
        }
        int port = ports.take();
        if (port == address.getPort()) continue;   // the server's own port: a connection to itself were nothing there
        try {
          ch.bind(ports.address(v4, port));
        } catch (BindException inUse) {
          continue;   // unbound still: the next port on the same socket
        }
        try {
          connect(ch, address);
          return ch;
        } catch (BindException taken) {   // EADDRNOTAVAIL: the four-tuple is taken; Java closed the socket
          ch = null;
        }
      }
    } catch (IOException | RuntimeException e) {
      if (ch != null) ch.close();
      throw e;
    }
    if (ch != null) ch.close();
    ch = open(address);   // the kernel's choice
    connect(ch, address);
    return ch;
  }

  /** A port range taken in turn from a start (the kernel's: a random one, so engines on one host seldom meet). */
  static final class SourcePorts {
    private static final InetAddress ANY4 = anyIpv4();
    final int low;
    final int high;
    private final AtomicInteger next;

    /** Ports low..high, the first taken low + start (mod the range's size). */
    SourcePorts(int low, int high, int start) {
      this.low = low;
      this.high = high;
      this.next = new AtomicInteger(start);
    }

    /** The kernel's range (ip_local_port_range), or Linux's default 32768-60999 when it cannot be read. */
    static SourcePorts fromKernel() {
      int low = 32768;
      int high = 60999;
      try {
        String[] f = Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).trim().split("\\s+");
        int l = Integer.parseInt(f[0]);
        int h = Integer.parseInt(f[1]);
        if (l >= 1024 && h > l && h <= 65535) {
          low = l;
          high = h;
        }
      } catch (IOException | RuntimeException e) {
        // the default
      }
      return new SourcePorts(low, high, ThreadLocalRandom.current().nextInt(high - low + 1));
    }

    /** The next port, in turn. */
    int take() {
      return low + Math.floorMod(next.getAndIncrement(), high - low + 1);
    }

    /** port on any local address of the family. */
    InetSocketAddress address(boolean v4, int port) {
      return v4 ? new InetSocketAddress(ANY4, port) : new InetSocketAddress(port);
    }

    private static InetAddress anyIpv4() {
      try {
        return InetAddress.getByAddress(new byte[4]);
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    }
  }
}
