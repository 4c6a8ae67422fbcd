package ai.kazeia;

/** The JNI entry points (bindings/jni/kazeia_jni.cpp); handles are the C API's pointers. */
final class Native {
  static {
    System.loadLibrary("kazeia_jni");
  }

  private Native() {}

  /** The C API's defaults, indexed by the constants below, so Java never restates them. */
  static final double[] DEFAULTS = defaults();

  static final int N_CTX = 0;
  static final int N_THREADS = 1;
  static final int CHECKPOINT_INTERVAL = 2;
  static final int CHECKPOINT_BUDGET_BYTES = 3;
  static final int TEMPERATURE = 4;
  static final int TOP_K = 5;
  static final int TOP_P = 6;
  static final int MIN_P = 7;
  static final int REPEAT_PENALTY = 8;
  static final int REPEAT_LAST_N = 9;
  static final int PRESENCE_PENALTY = 10;
  static final int SEED = 11;
  static final int MAX_TOKENS = 12;
  static final int ENABLE_THINKING = 13;
  static final int ADD_GENERATION_PROMPT = 14;
  static final int REUSE_PREFIX = 15;
  static final int PREFILL_MIN_TOKENS = 16;
  static final int MAX_DRAFT = 17;
  static final int DEVICE_LAYERS = 18;

  private static native double[] defaults();

  static native int apiVersion();

  static native long engineLoad(String path);

  static native void engineFree(long engine);

  static native long sessionNew(long engine, long nCtx, int nThreads, String kType, String vType,
      String backend, long checkpointInterval, long checkpointBudgetBytes, String opFilter,
      String cacheDir, String prefillDevice, String decodeDevice, long prefillMinTokens,
      String repack, int contextOverflow, long deviceLayers);

  static native void sessionFree(long session);

  /** Strings per message in generate's `messages`, and per call in its `toolCalls`. */
  static final int MESSAGE_FIELDS = 5;
  static final int TOOL_CALL_FIELDS = 3;

  /**
   * Generates from messages or, if prompt is not null, from those token ids. Messages arrive
   * flattened: role, content, reasoning content, tool-call id and name (each may be null) for
   * each in turn; message i's calls are the next toolCallCounts[i] triples (id, name, arguments
   * as JSON) of toolCalls. tools: JSON text of the tool definitions, or null. speculative: the
   * draft source ("none", "ngram", "mtp"), or null.
   */
  static native GenerateResult generate(long session, String[] messages, int[] toolCallCounts,
      String[] toolCalls, int[] prompt, float temperature, int topK, float topP, float minP,
      float repeatPenalty, int repeatLastN, float presencePenalty, long seed, int maxTokens,
      String[] stop, boolean enableThinking, boolean addGenerationPrompt, boolean reusePrefix,
      String tools, String speculative, int maxDraft, Session.PieceSink sink);

  static native void cancel(long session);

  static native void reset(long session);

  /** listener may be null. */
  static native void warmUp(long session, Session.WarmUpListener listener);

  static native long nTokens(long session);

  static native byte[] saveState(long session);

  static native void loadState(long session, byte[] image);

  static native void saveStateFile(long session, String path);

  static native void loadStateFile(long session, String path);
}
