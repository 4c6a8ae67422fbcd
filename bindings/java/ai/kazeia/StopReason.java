package ai.kazeia;

/** Why generation stopped; the order matches kz_stop_reason. */
public enum StopReason {
  END_OF_TURN,
  STOP_STRING,
  MAX_TOKENS,
  CONTEXT_FULL,
  /** Session.cancel(), or the listener returned false. */
  CANCELLED
}
