package ai.kazeia;

import java.util.Objects;

/**
 * A loaded model (memory-mapped, shared by all its sessions). Thread-safe. Closing it while
 * sessions are open is allowed: each session keeps the model alive until it is closed itself.
 */
public final class Engine implements AutoCloseable {
  private long handle;

  private Engine(long handle) {
    this.handle = handle;
  }

  /** Loads a GGUF model; a bad file raises KazeiaException naming the file and the fault. */
  public static Engine load(String path) {
    return new Engine(Native.engineLoad(Objects.requireNonNull(path, "path")));
  }

  /** KAZEIA_API_VERSION of the native library. */
  public static int apiVersion() {
    return Native.apiVersion();
  }

  public Session newSession() {
    return newSession(new SessionParams());
  }

  public synchronized Session newSession(SessionParams p) {
    if (handle == 0) throw new IllegalStateException("Engine is closed");
    return new Session(Native.sessionNew(handle, p.nCtx, p.nThreads, p.kType, p.vType, p.backend,
        p.checkpointInterval, p.checkpointBudgetBytes, p.opFilter, p.cacheDir, p.prefillDevice,
        p.decodeDevice, p.prefillMinTokens, p.repack, p.contextOverflow.ordinal(),
        p.deviceLayers));
  }

  @Override
  public synchronized void close() {
    if (handle != 0) {
      Native.engineFree(handle);
      handle = 0;
    }
  }
}
