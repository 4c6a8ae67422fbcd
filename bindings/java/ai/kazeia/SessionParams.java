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
  /** The device: "cpu", "ref", "opencl:N" or "ggml:NAME"; null: the engine's default. */
  public String backend = null;
  /**
   * Ops to run on the CPU instead of the device: a list such as "ssm_conv@prompt", a file, or
   * "auto" (the oracle's failing ops, cached per device and model); null: the KAZEIA_OPFILTER
   * environment variable, else none.
   */
  public String opFilter = null;
  /** Where "auto" keeps its results; null: KAZEIA_CACHE_DIR, else the user's cache folder. */
  public String cacheDir = null;
  /**
   * Split execution: prompt batches of at least prefillMinTokens tokens run on prefillDevice,
   * decode and shorter batches on decodeDevice; null: backend.
   */
  public String prefillDevice = null;
  public String decodeDevice = null;
  public long prefillMinTokens = (long) Native.DEFAULTS[Native.PREFILL_MIN_TOKENS];
  /**
   * Trunk layers whose prompt ops run on the device: the first N, the rest of the model on the
   * CPU, so that the device holds only their weights; -1: all.
   */
  public long deviceLayers = (long) Native.DEFAULTS[Native.DEVICE_LAYERS];
  /**
   * CPU weight repacking: "auto" (off beside an OpenCL device, so one copy of the weights serves
   * both), "on" or "off"; null: auto.
   */
  public String repack = null;
  /** Recurrent-state checkpoint every N tokens (0: only at message boundaries). */
  public long checkpointInterval = (long) Native.DEFAULTS[Native.CHECKPOINT_INTERVAL];
  public long checkpointBudgetBytes = (long) Native.DEFAULTS[Native.CHECKPOINT_BUDGET_BYTES];
  /** A conversation longer than the context: an error (default) or its oldest turns dropped. */
  public ContextOverflow contextOverflow = ContextOverflow.ERROR;

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

  public SessionParams opFilter(String value) {
    opFilter = value;
    return this;
  }

  public SessionParams cacheDir(String value) {
    cacheDir = value;
    return this;
  }

  public SessionParams prefillDevice(String value) {
    prefillDevice = value;
    return this;
  }

  public SessionParams decodeDevice(String value) {
    decodeDevice = value;
    return this;
  }

  public SessionParams prefillMinTokens(long value) {
    prefillMinTokens = value;
    return this;
  }

  public SessionParams deviceLayers(long value) {
    deviceLayers = value;
    return this;
  }

  public SessionParams contextOverflow(ContextOverflow value) {
    contextOverflow = value;
    return this;
  }

  public SessionParams repack(String value) {
    repack = value;
    return this;
  }
}
