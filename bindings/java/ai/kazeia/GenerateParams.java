package ai.kazeia;

import java.util.ArrayList;
import java.util.List;

/** Sampling and stopping settings; the defaults come from the engine (kz_generate_params_default). */
public final class GenerateParams {
  /** 0: greedy. */
  public float temperature = (float) Native.DEFAULTS[Native.TEMPERATURE];
  /** 0: off. */
  public int topK = (int) Native.DEFAULTS[Native.TOP_K];
  /** 1: off. */
  public float topP = (float) Native.DEFAULTS[Native.TOP_P];
  /** 0: off. */
  public float minP = (float) Native.DEFAULTS[Native.MIN_P];
  /** 1: off. */
  public float repeatPenalty = (float) Native.DEFAULTS[Native.REPEAT_PENALTY];
  public int repeatLastN = (int) Native.DEFAULTS[Native.REPEAT_LAST_N];
  public float presencePenalty = (float) Native.DEFAULTS[Native.PRESENCE_PENALTY];
  public long seed = (long) Native.DEFAULTS[Native.SEED];
  public int maxTokens = (int) Native.DEFAULTS[Native.MAX_TOKENS];
  /** Stop strings (not included in the returned text). */
  public List<String> stop = new ArrayList<>();
  public boolean enableThinking = Native.DEFAULTS[Native.ENABLE_THINKING] != 0;
  public boolean addGenerationPrompt = Native.DEFAULTS[Native.ADD_GENERATION_PROMPT] != 0;
  /** false: recompute the whole history. */
  public boolean reusePrefix = Native.DEFAULTS[Native.REUSE_PREFIX] != 0;
  /**
   * The tools as the JSON text of an array of definitions (OpenAI's {"type": "function",
   * "function": {...}}), printed in the system turn as the model's template does; null: none.
   * With tools, the reply's tool calls come back in GenerateResult.toolCalls and the listener
   * never sees their markup.
   */
  public String tools;
  /**
   * Speculative decoding: where drafts come from, "none", "ngram" (repeats of the text so far)
   * or "mtp" (the model's MTP layer); null: none. Greedy output is unchanged, sampling keeps its
   * distribution; GenerateResult.specPasses etc. count the drafts.
   */
  public String speculative;
  /** Drafted tokens per verification, 1..16. */
  public int maxDraft = (int) Native.DEFAULTS[Native.MAX_DRAFT];

  /** Greedy decoding: the same input always gives the same tokens. */
  public static GenerateParams greedy() {
    GenerateParams p = new GenerateParams();
    p.temperature = 0;
    return p;
  }

  public GenerateParams maxTokens(int value) {
    maxTokens = value;
    return this;
  }

  public GenerateParams temperature(float value) {
    temperature = value;
    return this;
  }

  public GenerateParams seed(long value) {
    seed = value;
    return this;
  }

  public GenerateParams tools(String json) {
    tools = json;
    return this;
  }

  public GenerateParams speculative(String source) {
    speculative = source;
    return this;
  }

  public GenerateParams maxDraft(int value) {
    maxDraft = value;
    return this;
  }
}
