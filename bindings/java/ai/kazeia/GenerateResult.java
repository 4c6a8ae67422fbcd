package ai.kazeia;

import java.nio.charset.StandardCharsets;

/** The outcome of one Session.generate call. */
public final class GenerateResult {
  public final String text;
  /** Generated token ids. */
  public final int[] tokens;
  public final StopReason stopReason;
  /** Tokens of the rendered history. */
  public final long promptTokens;
  /** Of which reused from the session's previous state. */
  public final long cachedTokens;
  /** Of which computed by this call. */
  public final long prefillTokens;
  /** Seconds from the call to the first generated token. */
  public final double ttftSeconds;
  public final double prefillSeconds;
  public final double decodeSeconds;

  // Called from native code.
  GenerateResult(byte[] utf8Text, int[] tokens, int stopReason, long promptTokens,
      long cachedTokens, long prefillTokens, double ttftSeconds, double prefillSeconds,
      double decodeSeconds) {
    this.text = new String(utf8Text, StandardCharsets.UTF_8);
    this.tokens = tokens;
    this.stopReason = StopReason.values()[stopReason];
    this.promptTokens = promptTokens;
    this.cachedTokens = cachedTokens;
    this.prefillTokens = prefillTokens;
    this.ttftSeconds = ttftSeconds;
    this.prefillSeconds = prefillSeconds;
    this.decodeSeconds = decodeSeconds;
  }

  public int generatedTokens() {
    return tokens.length;
  }

  @Override
  public String toString() {
    return "GenerateResult{stop=" + stopReason + ", prompt=" + promptTokens + ", cached="
        + cachedTokens + ", generated=" + tokens.length + "}";
  }
}
