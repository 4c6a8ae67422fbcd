package ai.kazeia;

/** Session settings; the defaults come from the engine (kz_session_params_default). */
public final class SessionParams {
  /** Context length in tokens. */
  public long nCtx = (long) Native.DEFAULTS[Native.N_CTX];
  /** 0: all hardware threads. */
  public int nThreads = (int) Native.DEFAULTS[Native.N_THREADS];
  /** KV cache element types, "f32", "f16" or "q8_0"; null: the engine's default. */
  public String kType = null;
  public String vType = null;
  /** "cpu" or "ref"; null: the engine's default. */
  public String backend = null;
  /** Recurrent-state checkpoint every N tokens (0: only at message boundaries). */
  public long checkpointInterval = (long) Native.DEFAULTS[Native.CHECKPOINT_INTERVAL];
  public long checkpointBudgetBytes = (long) Native.DEFAULTS[Native.CHECKPOINT_BUDGET_BYTES];

  public SessionParams nCtx(long value) {
    nCtx = value;
    return this;
  }

  public SessionParams nThreads(int value) {
    nThreads = value;
    return this;
  }

  public SessionParams backend(String value) {
    backend = value;
    return this;
  }
}
