package ai.kazeia;

import java.util.List;
import java.util.Objects;

/** One turn of a conversation. */
public final class Message {
  public final String role;
  public final String content;
  /** Assistant only; null: none (taken from a think block in content, as the templates do). */
  public final String reasoningContent;
  /** Assistant only: the tool calls of this turn; empty: none. */
  public final List<ToolCall> toolCalls;
  /** Tool only: the id of the call this result answers; null: none (the templates omit it). */
  public final String toolCallId;
  /** Tool only: the function's name; null: none (the templates omit it). */
  public final String name;

  public Message(String role, String content, String reasoningContent, List<ToolCall> toolCalls,
      String toolCallId, String name) {
    this.role = Objects.requireNonNull(role, "role");
    this.content = content == null ? "" : content;
    this.reasoningContent = reasoningContent;
    this.toolCalls = List.copyOf(Objects.requireNonNull(toolCalls, "toolCalls"));
    this.toolCallId = toolCallId;
    this.name = name;
  }

  public Message(String role, String content, String reasoningContent) {
    this(role, content, reasoningContent, List.of(), null, null);
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

  /** An assistant turn that calls tools (content may be empty). */
  public static Message assistant(String content, List<ToolCall> toolCalls) {
    return new Message("assistant", content, null, toolCalls, null, null);
  }

  /** A tool's result, answering the call with this id (null: none). */
  public static Message tool(String toolCallId, String content) {
    return new Message("tool", content, null, List.of(), toolCallId, null);
  }

  @Override
  public String toString() {
    return role + ": " + content + (toolCalls.isEmpty() ? "" : " " + toolCalls);
  }
}
