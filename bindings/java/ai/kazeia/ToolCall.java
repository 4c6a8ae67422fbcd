package ai.kazeia;

import java.util.Objects;

/**
 * A tool call: made by the assistant (in a Message of the history) or parsed from its reply (in
 * GenerateResult.toolCalls).
 */
public final class ToolCall {
  /** "": none. The Qwen templates do not print it; it pairs a tool's result with its call. */
  public final String id;
  /** The function. */
  public final String name;
  /** The arguments as JSON text, usually an object such as {"zone": "Europe/Paris"}. */
  public final String argumentsJson;

  /** id null: none; argumentsJson null: {}. */
  public ToolCall(String id, String name, String argumentsJson) {
    this.id = id == null ? "" : id;
    this.name = Objects.requireNonNull(name, "name");
    this.argumentsJson = argumentsJson == null ? "{}" : argumentsJson;
  }

  public ToolCall(String name, String argumentsJson) {
    this(null, name, argumentsJson);
  }

  @Override
  public boolean equals(Object other) {
    if (!(other instanceof ToolCall)) return false;
    ToolCall c = (ToolCall) other;
    return id.equals(c.id) && name.equals(c.name) && argumentsJson.equals(c.argumentsJson);
  }

  @Override
  public int hashCode() {
    return Objects.hash(id, name, argumentsJson);
  }

  @Override
  public String toString() {
    return (id.isEmpty() ? "" : id + ": ") + name + "(" + argumentsJson + ")";
  }
}
