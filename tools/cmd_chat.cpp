// kazeia chat: an interactive multi-turn conversation on the engine API. The whole history is
// passed to the session every turn, as the app does; the session reuses what it computed.
#include <cstdio>
#include <iostream>

#include "api/engine.h"
#include "base/error.h"
#include "base/read_file.h"
#include "common.h"

namespace kz::cli {
namespace {

std::vector<Json> read_tools(const std::string& path) {
  const std::string text = read_file(path, "tools file");
  try {
    return parse_tools(text);
  } catch (const Error& e) {
    fail(path, ": ", e.what());
  }
}

// The assistant's turn as history: its calls keep their structure, so the template renders them.
ChatMessage assistant_turn(const GenerateResult& r) {
  if (r.tool_calls.empty()) return {"assistant", r.text};
  return {"assistant", r.content, r.reasoning, r.tool_calls};
}

}  // namespace

int cmd_chat(int argc, char** argv) {
  EngineFlags engine_flags;
  SpeculativeFlags spec;
  GenerateParams gp;
  std::string system, tools_file, overflow = "error";
  bool no_think = false, stats = false, quiet = false;
  ArgParser p("kazeia chat",
              "Chat with a model in its own chat format. Type a message and press Enter. "
              "Commands: /reset (forget the conversation), /save FILE, /load FILE (session "
              "state), /quit. With --tools, the model's tool calls are shown and you type each "
              "call's result.");
  engine_flags.declare(p);
  spec.declare(p);
  p.add("-n,--n-predict", "N", "maximum tokens per answer (default 256)", &gp.max_tokens);
  p.add("--temp", "T", "temperature; 0 = greedy (default 0.8)", &gp.sampling.temperature);
  p.add("--top-k", "K", "top-k (default 40)", &gp.sampling.top_k);
  p.add("--top-p", "P", "top-p (default 0.95)", &gp.sampling.top_p);
  p.add("-s,--seed", "N", "random seed (default 0)", &gp.sampling.seed);
  p.add("--system", "TEXT", "system message", &system);
  p.add("--tools", "FILE", "JSON array of tool definitions (OpenAI's function schemas)",
        &tools_file);
  p.add("--context-overflow", "error|drop-oldest",
        "a conversation longer than the context: an error (then /reset), or drop the oldest "
        "whole turns after the system message (default error)",
        &overflow);
  p.add_switch("--no-think", "enable_thinking = false in the chat template", &no_think);
  p.add_switch("--stats", "print token counts and timings after each answer", &stats);
  add_quiet_switch(p, &quiet);
  if (!p.parse(argc, argv)) return 0;
  if (engine_flags.model.empty()) fail("missing -m MODEL");
  check_generation_flags(gp);
  const ContextOverflow overflow_policy = parse_context_overflow(overflow);
  gp.enable_thinking = !no_think;
  gp.speculative = spec.params();
  if (!tools_file.empty()) gp.tools = read_tools(tools_file);

  auto engine = Engine::load(engine_flags.model);
  SessionParams session_params = engine_flags.session_params(engine->model());
  session_params.context_overflow = overflow_policy;
  Session session(engine, session_params);
  EngineFlags::warn_past_training(engine->model(), session_params.n_ctx);
  warm_up_with_progress(session, engine->model(), quiet);

  std::vector<ChatMessage> history;
  if (!system.empty()) history.push_back({"system", system, ""});
  const size_t base = history.size();
  std::string line;
  while (std::printf("> "), std::fflush(stdout), std::getline(std::cin, line)) {
    if (line.empty()) continue;
    if (line == "/quit" || line == "/exit") break;
    try {
      if (line == "/reset") {
        history.resize(base);
        session.reset();
        std::printf("(conversation reset)\n");
        continue;
      }
      if (line.rfind("/save ", 0) == 0) {
        session.save_state_file(line.substr(6));
        std::printf("(state saved to %s)\n", line.substr(6).c_str());
        continue;
      }
      if (line.rfind("/load ", 0) == 0) {
        session.load_state_file(line.substr(6));
        std::printf("(state loaded from %s; the history shown to the model is unchanged)\n",
                    line.substr(6).c_str());
        continue;
      }
      history.push_back({"user", line, ""});
      auto answer = [&] {
        GenerateResult r = session.generate(history, gp, [](std::string_view piece) {
          std::fwrite(piece.data(), 1, piece.size(), stdout);
          std::fflush(stdout);
          return true;
        });
        std::printf("\n");
        if (r.dropped_messages > 0)
          std::printf("(the %lld oldest messages were left out to fit the context)\n",
                      (long long)r.dropped_messages);
        if (r.stop == StopReason::ContextFull)
          std::printf(
              "(the context of %lld tokens is full: /reset, or --context-overflow "
              "drop-oldest)\n",
              (long long)session_params.n_ctx);
        if (r.tool_call_malformed) std::printf("(a tool call did not parse; shown as text)\n");
        history.push_back(assistant_turn(r));
        return r;
      };
      GenerateResult r = answer();
      while (!r.tool_calls.empty()) {  // the user plays the tools
        for (const ToolCall& call : r.tool_calls) {
          std::printf("[tool call] %s %s\nresult> ", call.name.c_str(),
                      to_json_text(call.arguments).c_str());
          std::fflush(stdout);
          std::string result;
          if (!std::getline(std::cin, result)) return 0;
          ChatMessage tool("tool", result);
          tool.name = call.name;
          history.push_back(std::move(tool));
        }
        r = answer();
      }
      if (stats)
        std::printf(
            "[%lld prompt tokens, %lld reused, %zu generated, TTFT %.0f ms, %.1f tok/s, "
            "stop: %s]\n",
            (long long)r.prompt_tokens, (long long)r.cached_tokens, r.tokens.size(), r.ttft_s * 1e3,
            r.decode_tok_s(), std::string(stop_reason_name(r.stop)).c_str());
    } catch (const Error& e) {
      if (!history.empty() && history.back().role == "user") history.pop_back();
      std::fprintf(stderr, "error: %s\n", e.what());
    }
  }
  return 0;
}

}  // namespace kz::cli
