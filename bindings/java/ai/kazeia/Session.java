package ai.kazeia;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A conversation's state. Each generate() costs only the tokens that differ from the previous
 * call's history. Calls are serialized on the session; cancel() may be called from any thread.
 */
public final class Session implements AutoCloseable {
  // Guarded by `this` for every call, and also by cancelLock for freeing, so that cancel()
  // never waits for a running generate() yet never sees a freed handle.
  private volatile long handle;
  private final Object cancelLock = new Object();

  Session(long handle) {
    this.handle = handle;
  }

  public GenerateResult generate(List<Message> messages) {
    return generate(messages, new GenerateParams(), null);
  }

  public GenerateResult generate(List<Message> messages, GenerateParams params) {
    return generate(messages, params, null);
  }

  /**
   * Generates the next assistant turn for the conversation; the listener (may be null) receives
   * the text as it is produced, on this thread.
   */
  public synchronized GenerateResult generate(List<Message> messages, GenerateParams params,
      TokenListener listener) {
    Objects.requireNonNull(messages, "messages");
    Objects.requireNonNull(params, "params");
    String[] flat = new String[messages.size() * Native.MESSAGE_FIELDS];
    int[] callCounts = new int[messages.size()];
    List<String> calls = new ArrayList<>();
    for (int i = 0; i < messages.size(); i++) {
      Message m = Objects.requireNonNull(messages.get(i), "message");
      int at = i * Native.MESSAGE_FIELDS;
      flat[at] = m.role;
      flat[at + 1] = m.content;
      flat[at + 2] = m.reasoningContent;
      flat[at + 3] = m.toolCallId;
      flat[at + 4] = m.name;
      callCounts[i] = m.toolCalls.size();
      for (ToolCall call : m.toolCalls) {
        calls.add(call.id);
        calls.add(call.name);
        calls.add(call.argumentsJson);
      }
    }
    return run(flat, callCounts, calls.toArray(new String[0]), null, params, listener);
  }

  /** The same from token ids, without chat formatting. */
  public synchronized GenerateResult generateTokens(int[] prompt, GenerateParams params,
      TokenListener listener) {
    Objects.requireNonNull(prompt, "prompt");
    Objects.requireNonNull(params, "params");
    return run(null, null, null, prompt, params, listener);
  }

  private GenerateResult run(String[] messages, int[] toolCallCounts, String[] toolCalls,
      int[] prompt, GenerateParams params, TokenListener listener) {
    String[] stop = params.stop == null ? new String[0] : params.stop.toArray(new String[0]);
    return Native.generate(open(), messages, toolCallCounts, toolCalls, prompt,
        params.temperature, params.topK, params.topP, params.minP, params.repeatPenalty,
        params.repeatLastN, params.presencePenalty, params.seed, params.maxTokens, stop,
        params.enableThinking, params.addGenerationPrompt, params.reusePrefix, params.tools,
        params.speculative, params.maxDraft, listener == null ? null : new PieceSink(listener));
  }

  /** Makes a running generate() stop at the next token; safe from any thread, a no-op if closed. */
  public void cancel() {
    synchronized (cancelLock) {
      long h = handle;
      if (h != 0) Native.cancel(h);
    }
  }

  /** Forgets the conversation: the next call recomputes from scratch. */
  public synchronized void reset() {
    Native.reset(open());
  }

  /** Progress of warmUp: done of total units (the model's layers + 1). */
  public interface WarmUpListener {
    void onProgress(long done, long total);
  }

  /**
   * Pays the weights' first use now (their pages fault in, the CPU repacks them) with one token
   * through the session's decode device on a scratch state, so that the first answer's time to
   * first token is the prompt's own; listener (may be null) after each layer, e.g. for a loading
   * screen. The conversation is untouched.
   */
  public synchronized void warmUp(WarmUpListener listener) {
    Native.warmUp(open(), listener);
  }

  /** Number of tokens the state holds. */
  public synchronized long nTokens() {
    return Native.nTokens(open());
  }

  /** A versioned, checksummed image of the state, bound to the model. */
  public synchronized byte[] saveState() {
    return Native.saveState(open());
  }

  /** Restores an image; a bad or foreign one raises KazeiaException and changes nothing. */
  public synchronized void loadState(byte[] image) {
    Native.loadState(open(), Objects.requireNonNull(image, "image"));
  }

  public synchronized void saveState(Path path) {
    Native.saveStateFile(open(), path.toString());
  }

  public synchronized void loadState(Path path) {
    Native.loadStateFile(open(), path.toString());
  }

  @Override
  public synchronized void close() {
    synchronized (cancelLock) {
      if (handle != 0) {
        Native.sessionFree(handle);
        handle = 0;
      }
    }
  }

  private long open() {
    long h = handle;
    if (h == 0) throw new IllegalStateException("Session is closed");
    return h;
  }

  /** Native code hands each piece over as UTF-8 bytes; decoding here avoids modified UTF-8. */
  static final class PieceSink {
    private final TokenListener listener;

    PieceSink(TokenListener listener) {
      this.listener = listener;
    }

    boolean onPiece(byte[] utf8) {
      return listener.onText(new String(utf8, StandardCharsets.UTF_8));
    }
  }
}
