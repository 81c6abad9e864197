package pushbench.jmeter;

// A TLS server for the tests (the JDK's SSLServerSocket on 127.0.0.1, a thread per connection): it serves a
// certificate of targets/tls/make-certs.sh (made once per test JVM into a directory deleted at its exit:
// Certs) and answers every request it reads (up to its blank line) with a scripted answer: byte arrays
// written and flushed one by one (so records and TCP segments fall where the script says; an empty one is a
// pause of 50 ms), then, unless told to hold, the connection closed with close_notify. Every request's head
// is kept in `requests`.

import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;

final class TlsServer implements Closeable {
  /** The certificates of targets/tls/make-certs.sh, made once into a temporary directory. */
  static final class Certs {
    private static Path dir;

    static synchronized Path dir() throws IOException, InterruptedException {
      if (dir != null) return dir;
      Path d = Files.createTempDirectory("pb-tls-certs");
      Process p = new ProcessBuilder("bash", Path.of("../../targets/tls/make-certs.sh").toAbsolutePath().toString(), d.toString())
          .redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (p.waitFor() != 0) throw new IOException("make-certs.sh failed: " + out);
      d.toFile().deleteOnExit();   // deleted in the reverse order: its files first, then it
      try (java.util.stream.Stream<Path> files = Files.list(d)) {
        files.forEach(f -> f.toFile().deleteOnExit());
      }
      dir = d;
      return d;
    }

    static String pem(String name) throws IOException, InterruptedException {
      return Files.readString(dir().resolve(name), StandardCharsets.US_ASCII);
    }
  }

  private final SSLServerSocket server;
  private final Thread acceptor;
  private final Function<String, List<byte[]>> script;
  private final boolean hold;
  final List<String> requests = new CopyOnWriteArrayList<>();
  final List<Socket> sockets = new CopyOnWriteArrayList<>();

  /** Serves cert (a .pem of Certs, its key `key`), answering each request's head with script(head). */
  TlsServer(String cert, String key, boolean hold, Function<String, List<byte[]>> script) throws Exception {
    this.script = script;
    this.hold = hold;
    CertificateFactory cf = CertificateFactory.getInstance("X.509");
    Certificate[] chain = cf.generateCertificates(Files.newInputStream(Certs.dir().resolve(cert))).toArray(new Certificate[0]);
    String k = Certs.pem(key).replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
    PrivateKey pk = KeyFactory.getInstance("EC").generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(k)));
    KeyStore ks = KeyStore.getInstance("PKCS12");
    ks.load(null, null);
    ks.setKeyEntry("server", pk, "pw".toCharArray(), chain);
    KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    kmf.init(ks, "pw".toCharArray());
    SSLContext ctx = SSLContext.getInstance("TLS");
    ctx.init(kmf.getKeyManagers(), null, null);
    server = (SSLServerSocket) ctx.getServerSocketFactory().createServerSocket(0, 50, InetAddress.getByName("127.0.0.1"));
    acceptor = new Thread(this::accept, "tls-server");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  int port() {
    return server.getLocalPort();
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket s = server.accept();
        sockets.add(s);
        Thread t = new Thread(() -> serve(s), "tls-conn");
        t.setDaemon(true);
        t.start();
      } catch (IOException e) {
        return;
      }
    }
  }

  private void serve(Socket s) {
    try (s) {
      InputStream in = s.getInputStream();
      OutputStream out = s.getOutputStream();
      String head = readHead(in);
      if (head == null) return;
      requests.add(head);
      for (byte[] piece : script.apply(head)) {
        if (piece.length == 0) {   // an empty piece: a pause of 50 ms
          Thread.sleep(50);
          continue;
        }
        out.write(piece);
        out.flush();
      }
      if (hold) while (in.read() >= 0) { /* held until the client closes */ }
      s.setSoTimeout(100);   // closing: the client's close_notify is not waited for long
    } catch (IOException | InterruptedException e) {
      // the client went away (or the handshake failed): nothing to serve
    }
  }

  private static String readHead(InputStream in) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    int c;
    while ((c = in.read()) >= 0) {
      b.write(c);
      String t = b.toString(StandardCharsets.ISO_8859_1);
      if (t.endsWith("\r\n\r\n")) return t;
    }
    return null;
  }

  static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.ISO_8859_1);
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
