package ai.kazeia;

/** What generation does with a conversation longer than the context; the order matches kz_context_overflow. */
public enum ContextOverflow {
  /** A KazeiaException naming the prompt's and the context's sizes. */
  ERROR,
  /**
   * Drop the oldest whole turns (a user message and what follows it up to the next one) after the
   * system message: the fewest that leave room for the reply (maxTokens, at most half the
   * context). The last turn is always kept; the same history always drops the same turns.
   */
  DROP_OLDEST_TURNS
}
