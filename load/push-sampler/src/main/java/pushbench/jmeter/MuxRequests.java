package pushbench.jmeter;

// What a mux connection sends and how its answer is read, per transport (MuxStates drives the connection
// through its states): the bytes of each request (comet, poll and an SSE stream's first: the same bytes for
// every request; a pull's carry its cursor, an SSE reconnection its Last-Event-ID, a WebSocket upgrade a key
// of its own; a target's are its spec's, with a poll's or pull's cursor headers echoed and {{cursor}}
// filled), the parser set up for the answer (an upgrade's, a target's framing and cursor headers) and a
// WebSocket frame's mask.

import java.util.SplittableRandom;

final class MuxRequests {
  private final MuxConfig cfg;
  private final TargetSpec target;     // a target run's spec; null: the built-in protocol
  private final byte[] sharedRequest;  // comet, poll and an SSE stream's first: every request is the same bytes
  private final boolean headRequest;
  private final SplittableRandom random = new SplittableRandom();   // WS keys and masks
  /** WS: the subscription's event names (the cursor's), in its order. */
  final byte[][] wsNames;
  private final String[] cursorNames;  // a target poll's cursor response headers, lower case

  MuxRequests(MuxConfig cfg) {
    this.cfg = cfg;
    this.target = cfg.target;
    this.sharedRequest = target != null || cfg.type == MuxConfig.Type.PULL || cfg.type == MuxConfig.Type.WS ? null
        : cfg.type == MuxConfig.Type.SSE ? cfg.sseRequest(null) : cfg.request(cfg.body);
    this.wsNames = target == null && cfg.type == MuxConfig.Type.WS ? cfg.wsEvents() : new byte[0][];
    this.cursorNames = new String[target == null ? 0 : target.cursorFrom.length];
    for (int k = 0; k < cursorNames.length; k++) cursorNames[k] = target.cursorFrom[k].toLowerCase(java.util.Locale.ROOT);
    this.headRequest = "HEAD".equals(cfg.method);
  }

  // The parser ready for c's next answer: an upgrade's, a target's framing and cursor headers.
  void startAnswer(MuxConnection c) {
    c.startAnswer(headRequest, cfg.type == MuxConfig.Type.SSE);
    if (cfg.type == MuxConfig.Type.WS) c.parser.expectUpgrade();
    if (target == null) return;
    if (target.transport == TargetSpec.Transport.STREAM) {
      switch (target.framing) {
        case CHUNK: c.parser.frame(AnswerParser.CHUNK, null); break;
        case DELIMITER: c.parser.frame(AnswerParser.DELIMITER, target.delimiter); break;
        default: break;   // lines: the parser's own cut
      }
    } else if (target.transport == TargetSpec.Transport.POLL || target.transport == TargetSpec.Transport.PULL) {
      c.parser.frame(AnswerParser.WHOLE, null);
      if (cursorNames.length > 0) c.parser.capture(cursorNames);
    }
  }

  // The bytes of c's next request: a pull's carry its cursor, an SSE reconnection's its last event id, a
  // WebSocket upgrade a key of its own; a target's are its spec's.
  byte[] next(MuxConnection c) {
    if (target != null) return targetRequest(c);
    if (cfg.type == MuxConfig.Type.PULL) return cfg.pullRequest(c.cursor);
    if (cfg.type == MuxConfig.Type.WS) {
      c.wsKey = WsFrames.key(random);
      return cfg.wsRequest(c.wsKey);
    }
    if (cfg.type == MuxConfig.Type.SSE && c.lastEventId != null && c.lastEventId.length > 0) return cfg.sseRequest(c.lastEventId);
    return sharedRequest;
  }

  // A target subscription's request for c: the spec's, with the transport's own headers after the user's.
  private byte[] targetRequest(MuxConnection c) {
    switch (target.transport) {
      case WS:
        c.wsKey = WsFrames.key(random);
        return target.subscribeRequest(c.index, MuxConfig.wsHeaders(c.wsKey));
      case SSE:
        return target.subscribeRequest(c.index, c.lastEventId == null || c.lastEventId.length == 0 ? ""
            : "Last-Event-ID: " + new String(c.lastEventId, java.nio.charset.StandardCharsets.ISO_8859_1) + "\r\n");
      case POLL: case PULL:
        StringBuilder cursor = new StringBuilder();
        for (int k = 0; c.cursorValues != null && k < cursorNames.length; k++) {
          if (c.cursorValues[k] != null) cursor.append(target.cursorTo[k]).append(": ").append(c.cursorValues[k]).append("\r\n");
        }
        return target.subscribeRequest(c.index, cursor.toString(), c.messageCursor);
      default:
        return target.subscribeRequest(c.index, "");
    }
  }

  // A target poll's or pull's answer ended ok: the cursor headers it captured are sent with the next request.
  void keepCursor(MuxConnection c) {
    String[] captured = c.parser.captured;
    if (captured == null) return;
    if (c.cursorValues == null) c.cursorValues = new String[cursorNames.length];
    for (int k = 0; k < cursorNames.length; k++) if (captured[k] != null) c.cursorValues[k] = captured[k];
  }

  /** A masked WebSocket frame of this opcode and payload. */
  byte[] frame(int opcode, byte[] payload) {
    return WsFrames.frame(opcode, payload, random);
  }
}
