package ai.kazeia;

import java.nio.charset.StandardCharsets;

/** An error reported by the engine or the bindings; the message is the engine's one-line text. */
public class KazeiaException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** The C API's status: 1 invalid argument, 2 engine error, 3 out of memory, 4 busy, 5 internal. */
  private final int status;

  public KazeiaException(String message) {
    this(2, message);
  }

  public KazeiaException(int status, String message) {
    super(message);
    this.status = status;
  }

  // Called from native code: the message arrives as UTF-8 bytes (any bytes; never modified UTF-8).
  KazeiaException(int status, byte[] utf8Message) {
    this(status, new String(utf8Message, StandardCharsets.UTF_8));
  }

  public int status() {
    return status;
  }
}
