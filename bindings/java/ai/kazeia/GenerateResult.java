package ai.kazeia;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** The outcome of one Session.generate call. */
public final class GenerateResult {
  /** Everything generated (after stop strings), markup included. */
  public final String text;
  /** The text read back: the answer without reasoning and tool-call markup. */
  public final String content;
  /** The text inside the think block; "" when none. */
  public final String reasoning;
  /** The calls the reply made; parsed only when GenerateParams.tools was given. */
  public final List<ToolCall> toolCalls;
  /** A tool-call block did not parse: its text was kept in content (never dropped). */
  public final boolean toolCallMalformed;
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
  /** Speculative decoding: verification passes, drafted tokens, of which accepted (0 without). */
  public final long specPasses;
  public final long specDrafted;
  public final long specAccepted;
  /** Messages left out to fit the context (ContextOverflow.DROP_OLDEST_TURNS). */
  public final long droppedMessages;

  // Called from native code: strings as UTF-8 bytes, each tool call as three of them (id, name,
  // arguments) in turn.
  GenerateResult(byte[] utf8Text, int[] tokens, int stopReason, long promptTokens,
      long cachedTokens, long prefillTokens, double ttftSeconds, double prefillSeconds,
      double decodeSeconds, byte[] utf8Content, byte[] utf8Reasoning, byte[][] utf8ToolCalls,
      boolean toolCallMalformed, long specPasses, long specDrafted, long specAccepted,
      long droppedMessages) {
    this.text = new String(utf8Text, StandardCharsets.UTF_8);
    this.content = new String(utf8Content, StandardCharsets.UTF_8);
    this.reasoning = new String(utf8Reasoning, StandardCharsets.UTF_8);
    List<ToolCall> calls = new ArrayList<>();
    for (int i = 0; i + 2 < utf8ToolCalls.length; i += 3) {
      calls.add(new ToolCall(new String(utf8ToolCalls[i], StandardCharsets.UTF_8),
          new String(utf8ToolCalls[i + 1], StandardCharsets.UTF_8),
          new String(utf8ToolCalls[i + 2], StandardCharsets.UTF_8)));
    }
    this.toolCalls = Collections.unmodifiableList(calls);
    this.toolCallMalformed = toolCallMalformed;
    this.tokens = tokens;
    this.stopReason = StopReason.values()[stopReason];
    this.promptTokens = promptTokens;
    this.cachedTokens = cachedTokens;
    this.prefillTokens = prefillTokens;
    this.ttftSeconds = ttftSeconds;
    this.prefillSeconds = prefillSeconds;
    this.decodeSeconds = decodeSeconds;
    this.specPasses = specPasses;
    this.specDrafted = specDrafted;
    this.specAccepted = specAccepted;
    this.droppedMessages = droppedMessages;
  }

  public int generatedTokens() {
    return tokens.length;
  }

  @Override
  public String toString() {
    return "GenerateResult{stop=" + stopReason + ", prompt=" + promptTokens + ", cached="
        + cachedTokens + ", generated=" + tokens.length
        + (toolCalls.isEmpty() ? "" : ", toolCalls=" + toolCalls)
        + (toolCallMalformed ? ", toolCallMalformed" : "")
        + (specPasses == 0 ? "" : ", accepted=" + specAccepted + "/" + specDrafted + " drafts")
        + "}";
  }
}
