import ai.kazeia.Engine;
import ai.kazeia.GenerateParams;
import ai.kazeia.GenerateResult;
import ai.kazeia.Message;
import ai.kazeia.Session;
import ai.kazeia.SessionParams;
import ai.kazeia.StopReason;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The acceptance scenario through JNI, as the app calls it: Session.generate with the whole
 * history each turn, three turns in French on the bundled chat model. The answer at turn 3 holds
 * the first name and the age given at turn 1; the third call reuses the state of the second up
 * to where its prompt ended; a state saved after turn 2 and loaded into a fresh session gives the
 * same turn 3. At turn 10, after small talk, the answer still holds both; a question about a
 * fact never given is answered as such. Usage: java MemoryTest models/kazeia-chat-q8_0.gguf;
 * exits non-zero on failure.
 */
public final class MemoryTest {
  /** Turns 1-3: the acceptance scenario; 4-9: small talk; 10: the same question. Training
   * phrasings, a first name held out of training. */
  private static final String[] TURNS = {
    "Bonjour, je m'appelle Juliette et j'ai 34 ans.",
    "Il fait beau aujourd'hui.",
    "Tu te rappelles mon prénom et mon âge ?",
    "Comment ça va ?",
    "J'aime beaucoup la musique.",
    "Tu aimes lire ?",
    "Je viens de manger une pizza.",
    "Il pleut depuis ce matin.",
    "Je bois un café.",
    "Tu te rappelles mon prénom et mon âge ?"
  };
  /** Asked after turns 1-2: a fact never given. */
  private static final String NEVER_GIVEN = "Tu te rappelles ma ville ?";
  private static int failures = 0;

  private static void check(boolean condition, String what) {
    if (!condition) {
      failures++;
      System.err.println("CHECK failed: " + what);
    }
  }

  private static Session newSession(Engine engine) {
    return engine.newSession(new SessionParams().nCtx(1024).nThreads(2));
  }

  private static GenerateResult turn(Session s, List<Message> history, int i) {
    history.add(Message.user(TURNS[i]));
    return s.generate(history, GenerateParams.greedy().maxTokens(48));
  }

  /** The answer after the template's (empty) reasoning block. */
  private static String answer(GenerateResult r) {
    int end = r.text.lastIndexOf("</think>");
    return end < 0 ? r.text : r.text.substring(end + "</think>".length());
  }

  public static void main(String[] args) {
    try (Engine engine = Engine.load(args[0]);
        Session a = newSession(engine);
        Session b = newSession(engine);
        Session c = newSession(engine)) {
      List<Message> history = new ArrayList<>();
      history.add(Message.assistant(turn(a, history, 0).text));
      GenerateResult second = turn(a, history, 1);
      history.add(Message.assistant(second.text));
      byte[] image = a.saveState();
      b.loadState(image);
      check(b.nTokens() == a.nTokens(), "the loaded state holds the same tokens");

      GenerateResult third = turn(a, history, 2);
      System.out.println("turn 3: " + third.text);
      check(third.stopReason == StopReason.END_OF_TURN, "turn 3 ends its turn");
      check(answer(third).contains("Juliette"), "turn 3 recalls the first name");
      check(answer(third).contains("34"), "turn 3 recalls the age");
      check(third.cachedTokens == second.promptTokens,
          "turn 3 reuses the state up to turn 2's prompt: " + third.cachedTokens + " vs "
              + second.promptTokens);
      check(third.prefillTokens == third.promptTokens - third.cachedTokens,
          "prefill == prompt - cached");

      history.remove(history.size() - 1);
      GenerateResult restored = turn(b, history, 2);
      check(Arrays.equals(restored.tokens, third.tokens), "the restored session's turn 3");
      check(restored.text.equals(third.text), "the restored session's text");
      check(restored.cachedTokens == second.promptTokens, "the restored session reuses it too");

      history.add(Message.assistant(third.text));
      for (int i = 3; i < TURNS.length; i++) {
        GenerateResult later = turn(a, history, i);
        history.add(Message.assistant(later.text));
        if (i == 9) {
          System.out.println("turn 10: " + later.text);
          check(answer(later).contains("Juliette"), "turn 10 recalls the first name");
          check(answer(later).contains("34"), "turn 10 recalls the age");
        }
      }

      List<Message> fresh = new ArrayList<>();
      fresh.add(Message.assistant(turn(c, fresh, 0).text));
      fresh.add(Message.assistant(turn(c, fresh, 1).text));
      fresh.add(Message.user(NEVER_GIVEN));
      GenerateResult never = c.generate(fresh, GenerateParams.greedy().maxTokens(48));
      System.out.println("never given: " + never.text);
      check(answer(never).contains("Tu ne m'as pas encore dit"), "a fact never given is missing");
    }
    if (failures > 0) {
      System.err.println("FAILED: " + failures + " check(s)");
      System.exit(1);
    }
    System.out.println("the Java memory scenario passed");
  }
}
