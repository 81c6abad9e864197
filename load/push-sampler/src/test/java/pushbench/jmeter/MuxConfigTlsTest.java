package pushbench.jmeter;

// A built-in run over TLS as the engine takes it (run.sh --tls; docs/engine.md "TLS for the built-in
// servers"): MuxConfig.builtInTls turns the plan's tlsPort and tlsCa (base64 of the run's CA PEM) into the
// connections' port and a TlsConfig trusting that CA and checking the host's name; 0 or empty leaves plain
// TCP; a CA that is not base64, not PEM or not a certificate is refused naming tlsCa; a target run refuses
// them (its TLS is its spec's). The CA is targets/tls/make-certs.sh's (TlsServer.Certs).

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;

class MuxConfigTlsTest {
  private static MuxConfig builtIn() {
    return MuxConfig.parse("request", "127.0.0.1", "8080", "POST", "/request", "application/json", "{}", "1000", "1000",
        "10", "0", "5", "comet", "1000", "false", "1000", "0");
  }

  private static String b64(String text) {
    return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void portZeroOrEmptyLeavesPlainTcp() {
    MuxConfig c = builtIn();
    c.builtInTls("0", "");
    assertNull(c.tls);
    assertEquals(8080, c.port);
    c.builtInTls("", "");
    assertNull(c.tls);
    c.builtInTls(null, null);
    assertNull(c.tls);
  }

  @Test
  void thePortAndTheCaMakeTheConnectionsTls() throws Exception {
    String pem = TlsServer.Certs.pem("ca.pem");
    MuxConfig c = builtIn();
    c.builtInTls("8443", b64(pem));
    assertEquals(8443, c.port);
    assertNotNull(c.tls);
    assertEquals(pem, c.tls.caPem);
    assertFalse(c.tls.insecure);
    assertNull(c.tls.serverName);
    // the address's name checked (the certificate names IP 127.0.0.1), no SNI for an address
    javax.net.ssl.SSLEngine e = c.tls.engine(c.host, c.port);
    assertEquals("HTTPS", e.getSSLParameters().getEndpointIdentificationAlgorithm());
    assertTrue(e.getSSLParameters().getServerNames() == null || e.getSSLParameters().getServerNames().isEmpty());
  }

  @Test
  void aBadCaOrPortIsRefusedByName() throws Exception {
    IllegalArgumentException notBase64 = assertThrows(IllegalArgumentException.class, () -> builtIn().builtInTls("8443", "not base64!"));
    assertTrue(notBase64.getMessage().startsWith("tlsCa"), notBase64.getMessage());
    IllegalArgumentException empty = assertThrows(IllegalArgumentException.class, () -> builtIn().builtInTls("8443", ""));
    assertTrue(empty.getMessage().startsWith("tlsCa"), empty.getMessage());
    IllegalArgumentException notPem = assertThrows(IllegalArgumentException.class, () -> builtIn().builtInTls("8443", b64("hello")));
    assertTrue(notPem.getMessage().startsWith("tlsCa must be base64 of PEM text"), notPem.getMessage());
    IllegalArgumentException port = assertThrows(IllegalArgumentException.class, () -> builtIn().builtInTls("70000", b64(TlsServer.Certs.pem("ca.pem"))));
    assertTrue(port.getMessage().startsWith("tlsPort"), port.getMessage());
  }

  @Test
  void aTargetRunRefusesThem() throws Exception {
    MuxConfig c = MuxConfig.parse("request", "127.0.0.1", "8080", "GET", "/", "", "", "1000", "1000", "10", "0", "5", "sse", "1000",
        "false", "1000", "0", TargetSpecTest.base64(TargetSpecTest.spec("sse", TargetSpecTest.SSE_SUBSCRIBE, "")));
    String ca = b64(TlsServer.Certs.pem("ca.pem"));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> c.builtInTls("8443", ca));
    assertTrue(e.getMessage().contains("a target run's TLS is its spec's"), e.getMessage());
  }
}
