#!/usr/bin/python3
"""Renders conversations with a real chat template, as Hugging Face / llama.cpp do, so that
chat_test.cpp can compare its C++ rendering against the template itself.

usage: chat_render.py TEMPLATE CASES_JSON OUT_DIR
CASES_JSON is a list of {"messages": [...], "add_generation_prompt": bool,
"enable_thinking": bool} (and "tools": [...] for tool calling). For case i this writes OUT_DIR/i.txt (the rendering, UTF-8) or
OUT_DIR/i.err (the template's error message).
"""
import json
import os
import sys

try:
    import jinja2
    import jinja2.ext
    import jinja2.sandbox
except ImportError:
    sys.exit("chat_render.py: python3-jinja2 is required (apt install python3-jinja2)")


def raise_exception(message):
    raise jinja2.exceptions.TemplateError(message)


def tojson(value, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    # transformers' override of Jinja's own tojson (which sorts keys and writes \u003c for <,
    # \uXXXX for non-ASCII): the models were trained on this form, and llama.cpp writes the same.
    return json.dumps(value, ensure_ascii=ensure_ascii, indent=indent, separators=separators,
                      sort_keys=sort_keys)


def main():
    template_path, cases_path, out_dir = sys.argv[1:4]
    # The settings of transformers' _compile_jinja_template.
    env = jinja2.sandbox.ImmutableSandboxedEnvironment(
        trim_blocks=True, lstrip_blocks=True, extensions=[jinja2.ext.loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    with open(template_path, encoding="utf-8") as f:
        template = env.from_string(f.read())
    with open(cases_path, encoding="utf-8") as f:
        cases = json.load(f)
    for i, case in enumerate(cases):
        try:
            text, ext = template.render(**case), "txt"
        except Exception as e:  # every template failure is an expected outcome to compare
            text, ext = f"{type(e).__name__}: {e}", "err"
        with open(os.path.join(out_dir, f"{i}.{ext}"), "w", encoding="utf-8", newline="") as f:
            f.write(text)


if __name__ == "__main__":
    main()
