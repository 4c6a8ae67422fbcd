package ai.kazeia;

/** Receives generated text as it is produced. */
@FunctionalInterface
public interface TokenListener {
  /**
   * Called on the generating thread with each piece of text (always whole characters).
   *
   * @return true to continue, false to stop (the result's stop reason is then CANCELLED)
   */
  boolean onText(String piece);
}
