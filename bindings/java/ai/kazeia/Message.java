package ai.kazeia;

import java.util.Objects;

/** One turn of a conversation. */
public final class Message {
  public final String role;
  public final String content;
  /** Assistant only; null: none (taken from a think block in content, as the templates do). */
  public final String reasoningContent;

  public Message(String role, String content, String reasoningContent) {
    this.role = Objects.requireNonNull(role, "role");
    this.content = content == null ? "" : content;
    this.reasoningContent = reasoningContent;
  }

  public Message(String role, String content) {
    this(role, content, null);
  }

  public static Message system(String content) {
    return new Message("system", content);
  }

  public static Message user(String content) {
    return new Message("user", content);
  }

  public static Message assistant(String content) {
    return new Message("assistant", content);
  }

  @Override
  public String toString() {
    return role + ": " + content;
  }
}
