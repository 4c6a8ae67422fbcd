import ai.kazeia.ContextOverflow;
import ai.kazeia.Engine;
import ai.kazeia.GenerateParams;
import ai.kazeia.GenerateResult;
import ai.kazeia.KazeiaException;
import ai.kazeia.Message;
import ai.kazeia.Session;
import ai.kazeia.SessionParams;
import ai.kazeia.StopReason;
import ai.kazeia.ToolCall;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The Java bindings end to end, on fixture models with random weights: the text is gibberish, so
 * the checks are on token counts, stop reasons, cached tokens and equality between runs (greedy
 * sampling). Usage: java KazeiaTest model.gguf other-model.gguf; exits non-zero on failure.
 */
public final class KazeiaTest {
  private static int failures = 0;

  private interface Action {
    void run() throws Exception;
  }

  private static void check(boolean condition, String what) {
    if (!condition) {
      failures++;
      StackTraceElement at = new Throwable().getStackTrace()[1];
      System.err.println("line " + at.getLineNumber() + ": CHECK failed: " + what);
    }
  }

  /** The action must throw KazeiaException whose message contains `needle`. */
  private static void expectError(String what, String needle, Action action) {
    try {
      action.run();
      failures++;
      System.err.println(what + ": no exception");
    } catch (KazeiaException e) {
      String message = e.getMessage();
      if (message == null || !message.contains(needle) || message.contains("\n")) {
        failures++;
        System.err.println(what + ": message \"" + message + "\" lacks \"" + needle + "\"");
      } else {
        System.out.println("  " + what + " -> " + message);
      }
    } catch (Exception e) {
      failures++;
      System.err.println(what + ": unexpected " + e);
    }
  }

  private static Session newSession(Engine engine) {
    return engine.newSession(new SessionParams().nCtx(1024).nThreads(2));
  }

  private static GenerateParams greedy(int maxTokens) {
    GenerateParams p = GenerateParams.greedy().maxTokens(maxTokens);
    p.enableThinking = false;
    return p;
  }

  private static void multiTurn(Engine engine) {
    System.out.println("multi-turn generation");
    try (Session session = newSession(engine)) {
      List<Message> chat = new ArrayList<>();
      chat.add(Message.system("You are terse."));
      chat.add(Message.user("Hello there! \uD83D\uDE00 caf\u00e9")); // a surrogate pair is valid
      StringBuilder streamed = new StringBuilder();
      AtomicInteger pieces = new AtomicInteger();
      GenerateResult r1 = session.generate(chat, greedy(12), piece -> {
        streamed.append(piece);
        pieces.incrementAndGet();
        return true;
      });
      System.out.println("  turn 1: " + r1);
      check(r1.promptTokens > 0 && r1.cachedTokens == 0, "turn 1 computes its whole prompt");
      check(r1.prefillTokens == r1.promptTokens, "prefill == prompt on turn 1");
      check(r1.generatedTokens() > 0 && r1.generatedTokens() <= 12, "1..12 tokens generated");
      check(r1.stopReason == StopReason.END_OF_TURN || r1.stopReason == StopReason.MAX_TOKENS,
          "turn 1 stops at end of turn or max tokens");
      check(streamed.toString().equals(r1.text), "streamed text == returned text");
      check(pieces.get() > 0, "pieces were streamed");
      check(session.nTokens() > 0, "the session holds the turn");

      chat.add(Message.assistant(r1.text));
      chat.add(Message.user("And then?"));
      GenerateResult r2 = session.generate(chat, greedy(12));
      System.out.println("  turn 2: " + r2);
      check(r2.cachedTokens > 0, "turn 2 reuses turn 1's prefix");
      check(r2.promptTokens > r1.promptTokens, "turn 2's prompt is longer");
      check(r2.prefillTokens == r2.promptTokens - r2.cachedTokens, "prefill == prompt - cached");

      // Recomputing from scratch gives the same tokens.
      GenerateParams noReuse = greedy(12);
      noReuse.reusePrefix = false;
      try (Session fresh = newSession(engine)) {
        GenerateResult again = fresh.generate(chat, noReuse);
        check(Arrays.equals(again.tokens, r2.tokens), "reuse and recompute agree");
      }
    }
  }

  private static void cancel(Engine engine) throws Exception {
    System.out.println("cancel");
    List<Message> chat = List.of(Message.user("Count to one hundred."));
    try (Session session = newSession(engine)) {
      // The listener's return value.
      AtomicInteger pieces = new AtomicInteger();
      GenerateResult r = session.generate(chat, greedy(64), p -> pieces.incrementAndGet() < 3);
      System.out.println("  listener stop: " + r);
      if (r.stopReason != StopReason.END_OF_TURN) {
        check(r.stopReason == StopReason.CANCELLED, "listener stop -> CANCELLED");
        check(pieces.get() == 3, "no piece after the listener said stop");
      }

      // Session.cancel() from inside the listener.
      AtomicInteger seen = new AtomicInteger();
      r = session.generate(chat, greedy(64), p -> {
        if (seen.incrementAndGet() == 2) session.cancel();
        return true;
      });
      System.out.println("  cancel in listener: " + r);
      if (r.stopReason != StopReason.END_OF_TURN) {
        check(r.stopReason == StopReason.CANCELLED, "cancel in listener -> CANCELLED");
        check(seen.get() == 2, "no piece after cancel");
      }

      // Session.cancel() from another thread, while generate() is running: the listener holds
      // generation at the first piece until the other thread has cancelled.
      CountDownLatch firstPiece = new CountDownLatch(1);
      CountDownLatch cancelled = new CountDownLatch(1);
      Thread canceller = new Thread(() -> {
        try {
          firstPiece.await();
          session.cancel();
          cancelled.countDown();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
      canceller.start();
      AtomicInteger held = new AtomicInteger();
      r = session.generate(chat, greedy(64), p -> {
        held.incrementAndGet();
        firstPiece.countDown();
        try {
          check(cancelled.await(30, TimeUnit.SECONDS), "the other thread cancelled");
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        return true;
      });
      canceller.join();
      System.out.println("  cancel from a thread: " + r);
      if (r.stopReason != StopReason.END_OF_TURN) {
        check(r.stopReason == StopReason.CANCELLED, "cancel from a thread -> CANCELLED");
        check(held.get() == 1, "no piece after the cancel");
      }

      // A listener's exception comes out of generate() as is; the session stays usable.
      try {
        session.generate(chat, greedy(8), p -> {
          throw new IllegalStateException("listener failed");
        });
        check(false, "the listener's exception propagates");
      } catch (IllegalStateException e) {
        check(e.getMessage().equals("listener failed"), "the listener's own exception");
      }

      // A nested call on the session from its listener is refused, not a deadlock or a crash.
      expectError("nested call", "in use", () -> session.generate(chat, greedy(8), p -> {
        session.reset();
        return true;
      }));

      // A cancel does not outlive its call.
      r = session.generate(chat, greedy(8));
      check(r.stopReason != StopReason.CANCELLED, "the next call runs normally");
    }
  }

  private static void state(Engine engine) throws Exception {
    System.out.println("state save / load");
    Path file = Files.createTempFile("kazeia_java_state", ".bin");
    try (Session a = newSession(engine);
        Session b = newSession(engine);
        Session c = newSession(engine)) {
      List<Message> chat = new ArrayList<>(List.of(Message.user("Tell me a story.")));
      GenerateResult r1 = a.generate(chat, greedy(16));
      byte[] image = a.saveState();
      a.saveState(file);
      long saved = a.nTokens();
      System.out.println("  state image: " + image.length + " bytes for " + saved + " tokens");
      check(image.length > 0, "state image is not empty");
      chat.add(Message.assistant(r1.text));
      chat.add(Message.user("Go on."));
      GenerateResult ra = a.generate(chat, greedy(16));
      b.loadState(image);
      check(b.nTokens() == saved, "restored session holds the saved tokens");
      GenerateResult rb = b.generate(chat, greedy(16));
      c.loadState(file);
      GenerateResult rc = c.generate(chat, greedy(16));
      System.out.println("  continuation cached: original " + ra.cachedTokens + ", from bytes "
          + rb.cachedTokens + ", from file " + rc.cachedTokens);
      check(Arrays.equals(ra.tokens, rb.tokens), "bytes restore continues identically");
      check(Arrays.equals(ra.tokens, rc.tokens), "file restore continues identically");

      // A restored state holds no prefix checkpoints, so a recurrent model resumes only from its
      // end: extend the saved tokens exactly, at the token level.
      a.reset();
      GenerateResult g = a.generateTokens(r1.tokens, greedy(16), null);
      byte[] image2 = a.saveState();
      long state = a.nTokens();
      int[] prompt = new int[2 * r1.tokens.length + g.tokens.length];
      System.arraycopy(r1.tokens, 0, prompt, 0, r1.tokens.length);
      System.arraycopy(g.tokens, 0, prompt, r1.tokens.length, g.tokens.length);
      System.arraycopy(r1.tokens, 0, prompt, r1.tokens.length + g.tokens.length,
          r1.tokens.length);
      GenerateResult rd = a.generateTokens(prompt, greedy(16), null);
      b.reset();
      b.loadState(image2);
      GenerateResult re = b.generateTokens(prompt, greedy(16), null);
      System.out.println("  tokens: state " + state + ", cached original " + rd.cachedTokens
          + ", restored " + re.cachedTokens);
      check(state > 0 && rd.cachedTokens == state, "the live state is reused");
      check(re.cachedTokens == rd.cachedTokens, "the restored state is reused");
      check(Arrays.equals(rd.tokens, re.tokens), "restored continues identically (tokens)");
    } finally {
      Files.deleteIfExists(file);
    }
  }

  private static void badInputs(Engine engine, Engine other) {
    System.out.println("bad inputs");
    List<Message> chat = List.of(Message.user("Hi"));
    try (Session session = newSession(engine); Session foreign = newSession(other)) {
      GenerateResult r0 = session.generate(chat, greedy(8));
      byte[] image = session.saveState();
      long n0 = session.nTokens();

      // A lone surrogate cannot be UTF-8: the engine rejects it, nothing is replaced silently.
      expectError("invalid UTF-8", "message 1: invalid UTF-8", () -> session.generate(
          List.of(Message.user("Hi"), Message.assistant("caf\uD800")), greedy(8)));
      expectError("unknown role", "unknown role 'wizard'",
          () -> session.generate(List.of(new Message("wizard", "Hi")), greedy(8)));
      expectError("no messages", "no messages", () -> session.generate(List.of(), greedy(8)));
      GenerateParams badTopP = greedy(8);
      badTopP.topP = 0;
      expectError("top_p 0", "top_p", () -> session.generate(chat, badTopP));
      expectError("unknown device", "quantum",
          () -> engine.newSession(new SessionParams().backend("quantum")).close());
      expectError("bad op filter entry", "swiglu@promt",
          () -> engine.newSession(new SessionParams().opFilter("swiglu@promt")).close());
      expectError("bad repack", "sometimes",
          () -> engine.newSession(new SessionParams().repack("sometimes")).close());
      // The app's library has no test device (src/test_support/). Device layers reach the
      // engine: `ref` given no layer leaves the whole model to the CPU.
      expectError("test device", "unknown device 'faulty:swiglu'",
          () -> engine.newSession(new SessionParams().backend("faulty:swiglu")).close());
      try (Session healthy = engine.newSession(new SessionParams().nThreads(2));
          Session noLayers = engine.newSession(
              new SessionParams().nThreads(2).backend("ref").deviceLayers(0))) {
        List<Message> hello = List.of(Message.user("Hello there!"));
        check(noLayers.generate(hello, greedy(12)).text.equals(
                  healthy.generate(hello, greedy(12)).text),
            "no layer on the device: the CPU runs the whole model");
      }
      expectError("bad device layers", "invalid device layers -2",
          () -> engine.newSession(new SessionParams().deviceLayers(-2)).close());
      try (Session tiny = engine.newSession(new SessionParams().nCtx(64).nThreads(2))) {
        String longText = "abcdefghijklmnopqrstuvwxyz ".repeat(150);
        expectError("context overflow", "context",
            () -> tiny.generate(List.of(Message.user(longText)), greedy(8)));
        check(tiny.nTokens() == 0, "the overflowing prompt left nothing behind");
      }
      contextOverflow(engine);

      expectError("garbage state", "state", () -> session.loadState(new byte[] {1, 2, 3, 4}));
      expectError("truncated state", "state",
          () -> session.loadState(Arrays.copyOf(image, image.length / 2)));
      byte[] corrupted = image.clone();
      corrupted[corrupted.length - 1] ^= 0x5a;
      expectError("corrupted state", "state", () -> session.loadState(corrupted));
      expectError("missing state file", "kazeia-state.bin",
          () -> session.loadState(Path.of("/nonexistent/kazeia-state.bin")));
      foreign.generate(chat, greedy(8));
      byte[] foreignImage = foreign.saveState();
      expectError("state of another model", "model", () -> session.loadState(foreignImage));

      check(session.nTokens() == n0, "failed calls left the session's tokens unchanged");
      GenerateResult r = session.generate(chat, greedy(8));
      check(r.cachedTokens > 0, "the session still reuses its state");
      check(Arrays.equals(r.tokens, r0.tokens), "the session continues as before");
    }
    expectError("missing model", "kazeia-missing.gguf",
        () -> Engine.load("/nonexistent/kazeia-missing.gguf"));

    Session closed = newSession(engine);
    closed.close();
    closed.close(); // twice is harmless
    closed.cancel(); // a no-op once closed
    try {
      closed.generate(chat, greedy(8));
      check(false, "a closed session refuses calls");
    } catch (IllegalStateException e) {
      check(true, "closed");
    }
  }

  private static final String TOOLS = "[{\"type\": \"function\", \"function\": {\"name\": "
      + "\"get_time\", \"description\": \"The time in a zone.\", \"parameters\": {\"type\": "
      + "\"object\", \"properties\": {\"zone\": {\"type\": \"string\"}}}}}]";

  /** The chat templates' whitespace (C isspace), which the reply parser trims. */
  private static String trimSpaces(String s) {
    return s.replaceAll("^[ \t\n\u000B\f\r]+|[ \t\n\u000B\f\r]+$", "");
  }

  /**
   * A two-step tool conversation (kz_generate_chat's path): the model's answer, then a tool call
   * in the history and its result, which must render exactly as the same turn written as text.
   */
  // A history longer than the context: an error naming the sizes, or its oldest turns dropped
  // (the answer then equals the shortened history's). A NUL character is refused, not cut.
  private static void contextOverflow(Engine engine) {
    List<Message> history = new ArrayList<>();
    history.add(Message.system("You answer in one short sentence."));
    for (int i = 0; i < 12; ++i) {
      history.add(Message.user("Question " + i + ": what is " + i + " plus " + i + "?"));
      history.add(Message.assistant("It is " + (2 * i) + ", as anyone can count."));
    }
    history.add(Message.user("And what was the first question?"));
    long full;
    try (Session big = engine.newSession(new SessionParams().nCtx(4096).nThreads(1))) {
      full = big.generate(history, greedy(1)).promptTokens;
    }
    long nCtx = full / 2;
    try (Session refusing = engine.newSession(new SessionParams().nCtx(nCtx).nThreads(1));
        Session dropping = engine.newSession(new SessionParams().nCtx(nCtx).nThreads(1)
            .contextOverflow(ContextOverflow.DROP_OLDEST_TURNS));
        Session plain = engine.newSession(new SessionParams().nCtx(nCtx).nThreads(1))) {
      expectError("overflow, error policy", "tokens but the context holds " + nCtx,
          () -> refusing.generate(history, greedy(8)));
      GenerateResult r = dropping.generate(history, greedy(8));
      check(r.droppedMessages > 0 && r.droppedMessages % 2 == 0, "whole turns dropped");
      check(r.promptTokens + 8 <= nCtx, "room left for the reply");
      List<Message> kept = new ArrayList<>();
      kept.add(history.get(0));
      kept.addAll(history.subList(1 + (int) r.droppedMessages, history.size()));
      GenerateResult expected = plain.generate(kept, greedy(8));
      check(Arrays.equals(r.tokens, expected.tokens), "the shortened history's answer");
      check(expected.droppedMessages == 0, "nothing dropped when it fits");
      expectError("NUL character", "message 1: NUL byte",
          () -> plain.generate(List.of(Message.system("a"), Message.user("one\0two")), greedy(2)));
    }
  }

  private static void tools(Engine engine, Engine qwen3) {
    System.out.println("tools");
    GenerateParams params = greedy(6).tools(TOOLS);
    List<Message> history =
        new ArrayList<>(List.of(Message.user("What time is it in Z\u00fcrich?")));
    try (Session session = newSession(engine)) {
      // Step 1: random weights write text, not a call; the parts are the text read back.
      StringBuilder streamed = new StringBuilder();
      GenerateResult r1 = session.generate(history, params, piece -> {
        streamed.append(piece);
        return true;
      });
      System.out.println("  step 1: " + r1 + ", text \"" + r1.text + "\"");
      check(streamed.toString().equals(r1.text), "no markup to hide: all of the text streamed");
      check(r1.toolCalls.isEmpty() && !r1.toolCallMalformed, "no call in plain text");
      if (!r1.text.contains("<think>") && !r1.text.contains("</think>")) {
        check(r1.reasoning.isEmpty(), "thinking off: no reasoning");
        check(r1.content.equals(trimSpaces(r1.text)), "the content is the text, trimmed");
      }

      // Step 2: the system turn with the tools and the user turn are reused.
      ToolCall call = new ToolCall("call_1", "get_time", "{\"zone\": \"Europe/Z\u00fcrich\"}");
      history.add(Message.assistant("", List.of(call)));
      history.add(Message.tool("call_1", "12:00"));
      GenerateResult r2 = session.generate(history, params);
      System.out.println("  step 2: " + r2 + " (step 1 prompt: " + r1.promptTokens + ")");
      check(r2.promptTokens > r1.promptTokens, "step 2's prompt is longer");
      check(r2.cachedTokens >= r1.promptTokens - 1, "step 2 reuses step 1's prompt");

      // The call renders as the template's own text (Qwen3.5: <function=...> with parameters).
      List<Message> byHand = new ArrayList<>(history);
      byHand.set(1, Message.assistant("<tool_call>\n<function=get_time>\n<parameter=zone>\n"
          + "Europe/Z\u00fcrich\n</parameter>\n</function>\n</tool_call>"));
      try (Session fresh = newSession(engine)) {
        GenerateResult r3 = fresh.generate(byHand, params);
        check(r3.promptTokens == r2.promptTokens, "call and text give the same prompt (Qwen3.5)");
        check(Arrays.equals(r3.tokens, r2.tokens), "call and text give the same answer (Qwen3.5)");
      }

      // Thinking on: Qwen3.5's prompt ends inside <think>, so the reply starts as reasoning.
      GenerateParams thinking = greedy(8).tools(TOOLS);
      thinking.enableThinking = true;
      try (Session fresh = newSession(engine)) {
        GenerateResult rt = fresh.generate(history.subList(0, 1), thinking);
        System.out.println("  thinking: text \"" + rt.text + "\", reasoning \"" + rt.reasoning
            + "\", content \"" + rt.content + "\"");
        int close = rt.text.indexOf("</think>");
        String rest = close < 0 ? "" : rt.text.substring(close + "</think>".length());
        if (!rest.contains("<think>")) {
          check(rt.reasoning.equals(trimSpaces(close < 0 ? rt.text : rt.text.substring(0, close))),
              "the reasoning is the text up to </think>");
          check(rt.content.equals(trimSpaces(rest)), "the content is the text after </think>");
        }
        check(!rt.reasoning.isEmpty(), "some reasoning came back");
      }

      // Errors are one line naming what is wrong; the session is left as it was.
      long held = session.nTokens();
      expectError("bad tools JSON", "tools: line 1, column 13: expected a string key",
          () -> session.generate(history, greedy(2).tools("[{\"name\": 1,}]")));
      List<Message> badCall = new ArrayList<>(history);
      badCall.set(1, Message.assistant("", List.of(new ToolCall("get_time", "{\"zone\": }"))));
      expectError("bad arguments JSON", "messages[1].tool_calls[0].arguments: line 1, column 10",
          () -> session.generate(badCall, params));
      check(session.nTokens() == held, "failed calls left the session unchanged");
    }

    // Qwen3 writes the call as JSON: nested arguments keep their JSON types.
    List<Message> chat = List.of(Message.user("Remind me."),
        Message.assistant("", List.of(new ToolCall("remind", "{\"at\": {\"h\": 9, \"m\": 30}}"))),
        Message.tool(null, "done"));
    List<Message> chatByHand = List.of(chat.get(0),
        Message.assistant("<tool_call>\n{\"name\": \"remind\", \"arguments\": {\"at\": {\"h\": 9, "
            + "\"m\": 30}}}\n</tool_call>"),
        chat.get(2));
    try (Session a = newSession(qwen3); Session b = newSession(qwen3)) {
      GenerateResult ra = a.generate(chat, greedy(6).tools(TOOLS));
      GenerateResult rb = b.generate(chatByHand, greedy(6).tools(TOOLS));
      check(ra.promptTokens == rb.promptTokens, "call and text give the same prompt (Qwen3)");
      check(Arrays.equals(ra.tokens, rb.tokens), "call and text give the same answer (Qwen3)");
    }
  }

  /** Drafting changes nothing a greedy caller sees but the counts; bad settings are refused. */
  private static void speculative(Engine engine) {
    System.out.println("speculative decoding");
    List<Message> chat = List.of(Message.user("one two three, one two three, one two three"));
    try (Session plain = newSession(engine); Session spec = newSession(engine)) {
      GenerateResult a = plain.generate(chat, greedy(24));
      GenerateResult b = spec.generate(chat, greedy(24).speculative("ngram").maxDraft(3));
      System.out.println("  ngram: " + b);
      check(Arrays.equals(a.tokens, b.tokens), "the same greedy tokens with ngram drafts");
      check(a.specPasses == 0 && a.specDrafted == 0, "no drafts without speculation");
      check(b.specDrafted > 0, "ngram drafts from the repeated prompt");
      check(b.specAccepted <= b.specDrafted, "accepted <= drafted");
      check(b.specDrafted <= 3 * b.specPasses, "at most maxDraft drafts per pass");
      expectError("unknown draft source", "unknown draft source 'eagle'",
          () -> spec.generate(chat, greedy(8).speculative("eagle")));
      expectError("max_draft 17", "max_draft",
          () -> spec.generate(chat, greedy(8).speculative("ngram").maxDraft(17)));
    }
  }

  /** Sessions of one engine run on different threads at once and agree with each other. */
  private static void concurrentSessions(Engine engine) throws Exception {
    System.out.println("concurrent sessions");
    List<Message> chat = List.of(Message.user("Same question, two threads."));
    GenerateResult[] results = new GenerateResult[2];
    Thread[] threads = new Thread[2];
    for (int i = 0; i < 2; i++) {
      final int k = i;
      threads[i] = new Thread(() -> {
        try (Session s = newSession(engine)) {
          results[k] = s.generate(chat, greedy(16));
        }
      });
      threads[i].start();
    }
    for (Thread t : threads) t.join();
    check(results[0] != null && results[1] != null, "both threads finished");
    if (results[0] != null && results[1] != null) {
      check(Arrays.equals(results[0].tokens, results[1].tokens), "same tokens on both threads");
    }
  }

  /** Warm-up reports every layer to the end, leaves the conversation empty, passes throws on. */
  private static void warmUp(Engine engine) {
    try (Session session = newSession(engine)) {
      long[] last = {-1, -1};
      int[] calls = {0};
      session.warmUp((done, total) -> {
        last[0] = done;
        last[1] = total;
        calls[0]++;
      });
      check(calls[0] > 2 && last[0] == last[1] && last[1] == calls[0],
          "warm-up reports each layer, then the end");
      check(session.nTokens() == 0, "warm-up leaves the conversation empty");
      session.warmUp(null);
      try {
        session.warmUp((done, total) -> {
          throw new IllegalStateException("listener gave up");
        });
        check(false, "the listener's exception reaches the caller");
      } catch (IllegalStateException e) {
        check(e.getMessage().equals("listener gave up"), "the listener's own exception");
      }
    }
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 2) {
      System.err.println("usage: java KazeiaTest <model.gguf> <other-model.gguf>");
      System.exit(2);
    }
    check(Engine.apiVersion() == 4, "API version 4 (device layers in the C ABI)");
    Engine engine = Engine.load(args[0]);
    try (Engine other = Engine.load(args[1])) {
      multiTurn(engine);
      warmUp(engine);
      cancel(engine);
      state(engine);
      badInputs(engine, other);
      concurrentSessions(engine);
      speculative(engine);
      tools(engine, other);
    }
    // Closing the engine first is allowed: the session keeps the model alive.
    try (Session survivor = newSession(engine)) {
      engine.close();
      check(survivor.generate(List.of(Message.user("Still there?")), greedy(4)).generatedTokens()
          > 0, "a session outlives its engine");
    }
    if (failures > 0) {
      System.err.println("FAILED: " + failures + " check(s)");
      System.exit(1);
    }
    System.out.println("all Java binding checks passed");
  }
}
