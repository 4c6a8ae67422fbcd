#!/usr/bin/env python3
"""dashboard.py: regenerate the dashboard of docs/benchmarks.md and its plots.

  scripts/dashboard.py run [DIR]      run the benchmarks into DIR (one JSON file per process),
                                      then render (default DIR: build-dashboard/results)
  scripts/dashboard.py render [DIR]   render only, from the JSON files already in DIR

Rendering rewrites the part of docs/benchmarks.md between the markers
`<!-- dashboard:begin -->` and `<!-- dashboard:end -->` (everything else on the page is left as
it is), writes the plots docs/img/bench-*.png, and keeps every run's JSON in one file,
docs/img/dashboard-runs.json, so the page's figures can be audited and rendered again
(`scripts/dashboard.py render docs/img/dashboard-runs.json`).

What `run` does (each benchmark its own process; kazeia and the reference alternate, their
order swapped from one round to the next, so that a shared machine's load falls on both):
  1. pp512 / tg128 on every bench shape: `kazeia bench -p 512 -n 128 --roofline -o json` and
     the reference's `llama-bench -p 512 -n 0 -o json`, `-p 0 -n 128 -o json`;
  2. decode against context depth (tg32 at -d 0,1024,2048,4096), both engines;
  3. multi-turn prefix reuse (`kazeia bench --chat 5 --chat-tokens 184`);
  4. speculative decoding at full acceptance (`--spec replay --draft 2` and `4`);
  5. configurations A, B, C (`--configs`' three child runs, each with -o json: A = CPU only,
     B = --device for everything, C = prefill on --device, decode on the CPU), --device
     opencl:0 (PoCL on this VM);
  and records each process's peak RSS (wait4), the load average around it, the machine (CPU
  model, ISA flags), both commits and the date. Every kazeia figure comes from `bench -o json`
  (its rows with "test" "chat" and "spec" too).

Options: --kazeia BIN (env KAZEIA, default build/kazeia), --reference DIR (env REFERENCE,
default ../reference/llama.cpp/build/bin), --models DIR (default ../bench-models; missing files
are made by ../shared/tools/make-bench-models.sh), -r N runs per test [3], --rounds N [2],
-t N threads [2], --device D for the configurations [opencl:0], --only LIST (of sbs, depth,
chat, spec, configs), --doc FILE [docs/benchmarks.md], --img DIR [docs/img].
Needs python3 and python3-matplotlib (Debian) for the plots.

Run time: 18 minutes (1094 s) with the defaults (-r 3 --rounds 2) on the quiet 2-vCPU VM of
2026-12-06 (1-minute load average 0.8-3.5, the benchmarks' own two threads included), bench
models already made; 38 minutes with -r 2 under a load average of 6-12. --rounds 1, or --only,
shortens it.
"""
import argparse
import datetime
import json
import os
import platform
import re
import shlex
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BEGIN, END = "<!-- dashboard:begin -->", "<!-- dashboard:end -->"

# The bench shapes of ../shared/tools/make-bench-models.sh, in the dashboard's order.
SHAPES = ["qwen35-0.8b-q4_0", "qwen35-0.8b-q8_0", "qwen35-0.8b-q4_k_m", "qwen3-0.6b-q4_0",
          "qwen35-4b-q4_0"]
DEPTH_SHAPES = ["qwen35-0.8b-q4_0", "qwen3-0.6b-q4_0"]
DEPTHS = [0, 1024, 2048, 4096]
CHAT_SHAPE = "qwen35-0.8b-q4_0"
SPEC_SHAPE = "qwen35-0.8b-q4_0"
CONFIG_SHAPE = "qwen35-0.8b-q4_0"
ISA_FLAGS = ["avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512vl", "avx512_vnni", "avx_vnni",
             "avx512_bf16", "amx_tile", "amx_int8", "amx_bf16", "asimd", "asimddp", "i8mm"]


def die(msg):
    sys.exit("dashboard.py: error: " + msg)


def loadavg():
    with open("/proc/loadavg") as f:
        return [float(x) for x in f.read().split()[:3]]


def git(*args, cwd=ROOT):
    try:
        return subprocess.run(["git", "-c", "safe.directory=*", "-C", cwd] + list(args),
                              capture_output=True, text=True, check=True).stdout.strip()
    except (subprocess.CalledProcessError, FileNotFoundError):
        return "unknown"


def machine():
    model, flags = platform.processor(), []
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name") and model in ("", platform.processor()):
                model = line.split(":", 1)[1].strip()
            if line.startswith("flags") or line.startswith("Features"):
                have = set(line.split(":", 1)[1].split())
                flags = [x for x in ISA_FLAGS if x in have]
                break
    family = ""
    with open("/proc/cpuinfo") as f:
        m = re.search(r"^cpu family\s*:\s*(\d+)", f.read(), re.M)
        family = m.group(1) if m else ""
    mem_kib = 0
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal"):
                mem_kib = int(line.split()[1])
    dirty = git("status", "--porcelain", "--untracked-files=no")
    return {"cpu": model, "cpu_family": family, "isa": flags, "cpus": os.cpu_count(),
            "mem_gib": round(mem_kib / 1048576, 1), "kernel": platform.release(),
            "kazeia_commit": git("rev-parse", "--short", "HEAD") + ("+dirty" if dirty else ""),
            "kazeia_commit_date": git("log", "-1", "--format=%cI"),
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")}


class Runner:
    """Runs one benchmark process, records its output, peak RSS and load into DIR/NAME.json."""

    def __init__(self, out_dir, kazeia, reference):
        self.out, self.kazeia, self.reference = out_dir, kazeia, reference

    def __call__(self, name, engine, argv, env=None):
        path = os.path.join(self.out, name + ".json")
        if os.path.exists(path):  # a finished job (an interrupted run goes on where it stopped)
            print("  kept   %s" % name, file=sys.stderr)
            return
        exe = self.kazeia if engine == "kazeia" else os.path.join(self.reference, "llama-bench")
        cmd = [exe] + argv
        print("  run    %s: %s" % (name, " ".join(shlex.quote(a) for a in [os.path.basename(exe)] + argv)),
              file=sys.stderr)
        load0, t0 = loadavg(), time.time()
        # Output to files and the child reaped by wait4 here, for its own peak RSS.
        with open(path + ".out", "w+") as fo, open(path + ".err", "w+") as fe:
            proc = subprocess.Popen(cmd, stdout=fo, stderr=fe, env=dict(os.environ, **(env or {})))
            _, status, usage = os.wait4(proc.pid, 0)
            proc.returncode = os.waitstatus_to_exitcode(status)
            fo.seek(0)
            fe.seek(0)
            out, err = fo.read(), fe.read()
        os.remove(path + ".out")
        os.remove(path + ".err")
        if proc.returncode != 0:
            sys.stderr.write(err[-3000:])
            die("%s failed (exit %d): %s" % (name, proc.returncode, " ".join(cmd)))
        rec = {"name": name, "engine": engine,
               "command": " ".join(shlex.quote(a) for a in
                                   [("kazeia" if engine == "kazeia" else "llama-bench")] + argv),
               "env": env or {}, "start": datetime.datetime.fromtimestamp(
                   t0, datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC"),
               "wall_s": round(time.time() - t0, 1), "load_before": load0,
               "load_after": loadavg(), "stderr_tail": err[-1500:]}
        rec.update(parse_output(out))
        rec["max_rss_mib"] = round(usage.ru_maxrss / 1024, 1)
        tmp = path + ".part"
        with open(tmp, "w") as f:
            json.dump(rec, f, indent=1)
        os.replace(tmp, path)


def parse_output(out):
    """`bench -o json` and `llama-bench -o json` print one JSON array."""
    return {"rows": json.loads(out)}


def models_ready(models_dir, kazeia, reference):
    missing = [s for s in SHAPES if not os.path.exists(os.path.join(models_dir, s + ".gguf"))]
    if missing:
        ref_dir = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
            os.path.abspath(os.path.join(reference, "llama-bench"))))))
        print("making bench models (%s) in %s" % (", ".join(missing), models_dir), file=sys.stderr)
        subprocess.run([os.path.join(ROOT, "..", "shared", "tools", "make-bench-models.sh"),
                        kazeia, ref_dir, models_dir,
                        os.path.join(ROOT, "..", "shared", "fixtures", "vocab")], check=True)


def run_all(a):
    os.makedirs(a.dir, exist_ok=True)
    if not os.access(a.kazeia, os.X_OK):
        die("no kazeia binary at %s (build it, or set --kazeia / KAZEIA)" % a.kazeia)
    if not os.access(os.path.join(a.reference, "llama-bench"), os.X_OK):
        die("no llama-bench in %s (run ../shared/tools/build-reference.sh)" % a.reference)
    models_ready(a.models, a.kazeia, a.reference)
    m = lambda s: os.path.join(a.models, s + ".gguf")
    run = Runner(a.dir, a.kazeia, a.reference)
    meta_path = os.path.join(a.dir, "machine.json")
    if not os.path.exists(meta_path):
        meta = machine()
        if a.commit:
            meta["kazeia_commit"] = a.commit
        meta["reference_commit"] = git("rev-parse", "--short", "HEAD",
                                       cwd=os.path.join(a.reference, "..", ".."))
        meta["threads"], meta["reps"], meta["rounds"] = a.threads, a.reps, a.rounds
        with open(meta_path, "w") as f:
            json.dump(meta, f, indent=1)
    t, r = str(a.threads), str(a.reps)
    only = set(a.only.split(","))
    start = time.time()

    def both(rnd, tag, shape, kaz_args, ref_calls):
        jobs = [("kazeia", lambda: run("%s-r%d-kazeia-%s" % (tag, rnd, shape), "kazeia",
                                       ["bench", "-m", m(shape), "-t", t] + kaz_args))]
        jobs.append(("reference", lambda: [
            run("%s-r%d-reference-%s-%d" % (tag, rnd, shape, i), "reference",
                ["-m", m(shape), "-t", t, "-o", "json"] + c) for i, c in enumerate(ref_calls)]))
        for _, job in (jobs if rnd % 2 else reversed(jobs)):
            job()

    def side_by_side(rnd):
        if "sbs" in only:
            for s in SHAPES:
                both(rnd, "sbs", s, ["-p", "512", "-n", "128", "-r", r, "--roofline", "-o", "json"],
                     [["-p", "512", "-n", "0", "-r", r], ["-p", "0", "-n", "128", "-r", r]])
        if "depth" in only and rnd <= a.depth_rounds:
            d = ",".join(map(str, DEPTHS))
            for s in DEPTH_SHAPES:
                both(rnd, "depth", s, ["-p", "0", "-n", "32", "-d", d, "-r", "2", "-o", "json"],
                     [["-p", "0", "-n", "32", "-d", d, "-r", "2"]])

    # Round 1 of everything first, then the further rounds of the side-by-side tests, so that
    # a run cut short still covers every table.
    side_by_side(1)
    if "chat" in only:
        run("chat-kazeia-" + CHAT_SHAPE, "kazeia",
            ["bench", "-m", m(CHAT_SHAPE), "-t", t, "-p", "0", "-n", "0", "--chat", "5",
             "--chat-tokens", "184", "-r", r, "-o", "json"])
    if "spec" in only:
        for k in ("2", "4"):
            run("spec-k%s-kazeia-%s" % (k, SPEC_SHAPE), "kazeia",
                ["bench", "-m", m(SPEC_SHAPE), "-t", t, "-p", "0", "-n", "32", "-r", r,
                 "--spec", "replay", "--draft", k, "-o", "json"])
    if "configs" in only:
        # The flags `kazeia bench --configs A,B,C` gives each of its child processes
        # (tools/bench_configs.cpp), run here with -o json.
        flags = {"A": ["--device", "cpu", "--op-filter", "none"],
                 "B": ["--device", a.device, "--op-filter", "auto"],
                 "C": ["--device", a.device, "--prefill-device", a.device, "--decode-device", "cpu",
                       "--op-filter", "auto"]}
        for c in "ABC":
            run("config-%s-kazeia-%s" % (c, CONFIG_SHAPE), "kazeia",
                ["bench", "-m", m(CONFIG_SHAPE), "-t", t, "-p", "512", "-n", "32", "-r", "2",
                 "-o", "json"] + flags[c])
    for rnd in range(2, a.rounds + 1):
        side_by_side(rnd)
    print("benchmarks took %.0f s" % (time.time() - start), file=sys.stderr)


# ------------------------------------------------------------------------------------------------
# Rendering

def load_runs(src):
    if os.path.isfile(src):
        with open(src) as f:
            d = json.load(f)
        return d["machine"], d["runs"]
    runs = []
    for name in sorted(os.listdir(src)):
        if name.endswith(".json") and name != "machine.json":
            with open(os.path.join(src, name)) as f:
                runs.append(json.load(f))
    meta_path = os.path.join(src, "machine.json")
    if not os.path.exists(meta_path):
        die("no machine.json in %s (not a folder of `dashboard.py run`)" % src)
    with open(meta_path) as f:
        return json.load(f), runs


def med(xs):
    return statistics.median(xs) if xs else None


def fmt(x, spec="%.2f"):
    return "-" if x is None else spec % x


def ref_test(row):
    p, n, d = int(row["n_prompt"]), int(row["n_gen"]), int(row.get("n_depth", 0))
    return ("pp%d" % p if p else "tg%d" % n) + (" @ d%d" % d if d else "")


def sbs_table(runs, tag):
    """{(shape, test): {"kazeia": {round: t/s}, "reference": {...}, ...}} for runs of `tag`."""
    out = {}
    for rec in runs:
        m = re.fullmatch(r"%s-r(\d+)-(kazeia|reference)-(.+?)(-\d+)?" % tag, rec["name"])
        if not m:
            continue
        rnd, engine, shape = int(m.group(1)), m.group(2), m.group(3)
        for row in rec["rows"]:
            test = row["test"] if engine == "kazeia" else ref_test(row)
            ts = row["tok_s"] if engine == "kazeia" else row["avg_ts"]
            cell = out.setdefault((shape, test), {"kazeia": {}, "reference": {}, "roofline": [],
                                                  "rss": {"kazeia": [], "reference": []}})
            cell[engine][rnd] = ts
            if engine == "kazeia" and row.get("roofline_pct"):
                cell["roofline"].append(row["roofline_pct"])
            cell["rss"][engine].append(row["peak_rss_mib"] if engine == "kazeia"
                                       else rec["max_rss_mib"])
    return out


def summarize(cell):
    k, ref = cell["kazeia"], cell["reference"]
    both = [r for r in sorted(k) if r in ref and ref[r] > 0]
    if both:  # a round cut short (one engine only) is left out of both sides
        k, ref = {r: k[r] for r in both}, {r: ref[r] for r in both}
    ratios = [k[r] / ref[r] for r in both]
    return (med(list(k.values())), med(list(ref.values())), med(ratios), ratios)


def commands_of(runs, prefix):
    """The distinct commands of the runs named `prefix`*, the model file written FILE."""
    seen = []
    for rec in runs:
        if rec["name"].startswith(prefix):
            c = re.sub(r"-m \S+", "-m FILE", rec["command"])
            if c not in seen:
                seen.append(c)
    return seen


def load_span(runs, prefix):
    sel = [r for r in runs if r["name"].startswith(prefix)]
    if not sel:
        return ""
    loads = [x["load_before"][0] for x in sel] + [x["load_after"][0] for x in sel]
    return "%s to %s, load average (1 min) %.1f-%.1f" % (
        min(x["start"] for x in sel)[:16], max(x["start"] for x in sel)[11:16],
        min(loads), max(loads))


def shape_label(shape):
    return shape.replace("qwen35-", "Qwen3.5-").replace("qwen3-", "Qwen3-").replace(
        "b-", "B ").replace("q4_k_m", "Q4_K_M").replace("q4_0", "Q4_0").replace("q8_0", "Q8_0")


def render(a):
    meta, runs = load_runs(a.dir)
    if a.load_note:
        meta["load_note"] = a.load_note
    global FOOTER
    FOOTER = "%s, %d vCPUs, %d threads; kazeia %s, llama.cpp %s; %s; load average %s" % (
        meta["cpu"], meta["cpus"], meta["threads"], meta["kazeia_commit"],
        meta["reference_commit"], meta["date"][:10], load_span(runs, "").split("load average (1 min) ")[-1])
    kernels = sorted({row["isa"] for rec in runs if rec["engine"] == "kazeia"
                      for row in rec["rows"] if row.get("isa")})
    runs.sort(key=lambda r: r["start"])
    img = a.img
    os.makedirs(img, exist_ok=True)
    L = []
    w = L.append
    isa = " ".join(meta["isa"])
    w(BEGIN)
    w("<!-- Generated by scripts/dashboard.py from `kazeia bench -o json` and `llama-bench -o json` "
      "runs; edit the script, not this part. -->")
    w("## Dashboard: where we stand (runs of %s)" % meta["date"])
    w("")
    w("Regenerate: `scripts/dashboard.py run` (runs everything below, then rewrites this part and "
      "the plots); `scripts/dashboard.py render docs/img/dashboard-runs.json` re-renders these "
      "very runs. Every figure here comes from one such run:")
    w("")
    w("- **Machine**: %s (cpu family %s), %d vCPUs, %.0f GiB RAM, Linux %s; ISA flags: %s; "
      "%d threads; kazeia's kernel table: %s." % (
          meta["cpu"], meta["cpu_family"], meta["cpus"], meta["mem_gib"], meta["kernel"], isa,
          meta["threads"], ", ".join(kernels) or "-"))
    w("- **Commits**: kazeia %s; reference llama.cpp %s (`../shared/tools/build-reference.sh`: "
      "clang-14, `-march=native`, CPU backend)." % (meta["kazeia_commit"], meta["reference_commit"]))
    span = load_span(runs, "")
    w("- **Date and load**: %s (%s)." % (span, meta.get("load_note", "the machine shared with "
      "other jobs; the load average of each run is in the JSON")))
    w("- **Models**: the files of `../shared/tools/make-bench-models.sh` (real shapes, random "
      "weights; mkmodel F16, then the reference's `llama-quantize`: stock mixes, so the Q4_0 "
      "files keep token embeddings / output in Q6_K; Qwen3.5 shapes with their 248,320-token "
      "vocabulary), read by both engines.")
    w("- **How to read it**: each engine's cell is the median over rounds of a round's mean of "
      "-r %d runs; a ratio is the median of the per-round ratios, the two engines measured back to "
      "back in each round, their order swapped from one round to the next. On a shared machine "
      "absolute t/s move by 10-20 %% between rounds; the ratios are the figures to quote." %
      meta["reps"])
    w("")

    # --- 1. side by side ---
    sbs = sbs_table(runs, "sbs")
    if sbs:
        w("### Ours vs the reference: pp512 and tg128, every bench shape")
        w("")
        w("```")
        for c in commands_of(runs, "sbs-r1-"):
            w(c)
        w("```")
        w("")
        w("| shape | test | kazeia t/s | reference t/s | kazeia / reference | per round | "
          "tg % of roofline |")
        w("|---|---|---:|---:|---:|---|---:|")
        for shape in SHAPES:
            for test in ("pp512", "tg128"):
                cell = sbs.get((shape, test))
                if not cell:
                    continue
                k, ref, ratio, ratios = summarize(cell)
                w("| %s | %s | %s | %s | %s | %s | %s |" % (
                    shape_label(shape), test, fmt(k), fmt(ref), fmt(ratio, "**%.2fx**"),
                    " ".join("%.2f" % x for x in ratios),
                    fmt(med(cell["roofline"]), "%.0f %%") if test.startswith("tg") else ""))
        w("")
        w("![kazeia and the reference, pp512 and tg128 per shape](img/bench-vs-reference.png)")
        w("")
        plot_sbs(sbs, os.path.join(img, "bench-vs-reference.png"))

    # --- 2. depth ---
    dep = sbs_table(runs, "depth")
    if dep:
        w("### Decode against context depth")
        w("")
        w("tg32 after 0-4096 tokens already in the cache (untimed), K/V f16. %s." %
          load_span(runs, "depth"))
        w("")
        w("```")
        for c in commands_of(runs, "depth-r1-"):
            w(c)
        w("```")
        w("")
        w("| shape | depth | kazeia t/s | reference t/s | kazeia / reference | kazeia vs depth 0 | "
          "reference vs depth 0 |")
        w("|---|---:|---:|---:|---:|---:|---:|")
        for shape in DEPTH_SHAPES:
            k0 = r0 = None
            for d in DEPTHS:
                cell = dep.get((shape, "tg32" + (" @ d%d" % d if d else "")))
                if not cell:
                    continue
                k, ref, ratio, _ = summarize(cell)
                if d == 0:
                    k0, r0 = k, ref
                w("| %s | %d | %s | %s | %s | %s | %s |" % (
                    shape_label(shape), d, fmt(k), fmt(ref), fmt(ratio, "**%.2fx**"),
                    fmt(k / k0 * 100 if k and k0 else None, "%.0f %%"),
                    fmt(ref / r0 * 100 if ref and r0 else None, "%.0f %%")))
        w("")
        w("![decode speed against context depth](img/bench-depth.png)")
        w("")
        plot_depth(dep, os.path.join(img, "bench-depth.png"))

    # --- 3. chat ---
    chat = [r for r in runs if r["name"].startswith("chat-")]
    turns = [row for row in chat[-1]["rows"] if row["test"] == "chat"] if chat else []
    if turns:
        rec = chat[-1]
        w("### Multi-turn conversation: prefix reuse (kazeia only)")
        w("")
        w("Five user turns of ~184 tokens plus 16-token answers (~200 a turn), replayed -r times "
          "in fresh engines: TTFT with the previous turns reused (the app passes the whole history "
          "each turn) against recomputing the whole prompt, and against prefilling only the new "
          "tokens at position 0 (\"alone\") or after the same prefix (\"at depth\"); medians of "
          "the replays. llama-bench has no multi-turn mode. %s." % load_span(runs, "chat"))
        w("")
        w("```")
        w(re.sub(r"-m \S*/", "-m ", rec["command"]))
        w("```")
        w("")
        w("| turn | prompt tokens | cached | TTFT reuse ms | TTFT recompute ms | speed-up | "
          "new tokens alone ms | reuse / alone | new tokens at depth ms | reuse / at depth |")
        w("|" + "---:|" * 10)
        for row in turns:
            w("| %d | %d | %d | %.1f | %.1f | %.1fx | %.1f | %.2fx | %.1f | %.2fx |" % (
                row["turn"], row["prompt_tokens"], row["cached_tokens"], row["ttft_reuse_ms"],
                row["ttft_recompute_ms"], row["speedup"], row["ttft_alone_ms"],
                row["reuse_over_alone"], row["ttft_at_depth_ms"], row["reuse_over_at_depth"]))
        w("")
        w("![TTFT per turn with and without prefix reuse](img/bench-chat-ttft.png)")
        w("")
        plot_chat(turns, os.path.join(img, "bench-chat-ttft.png"))

    # --- 4. speculative ---
    spec = [r for r in runs if r["name"].startswith("spec-")
            and any(row["test"] == "spec" for row in r["rows"])]
    if spec:
        w("### Speculative decoding: verification at full acceptance (kazeia only)")
        w("")
        w("Greedy decoding of 32 tokens after a 32-token prompt, plain and speculative alternating "
          "in one process; `replay` drafts the plain run's own tokens (100 %% acceptance), so the "
          "speed-up is the best any drafter can give and `pass / plain token` is the cost of "
          "verifying k drafts. %s." % load_span(runs, "spec"))
        w("")
        w("```")
        for rec in spec:
            w(re.sub(r"-m \S*/", "-m ", rec["command"]))
        w("```")
        w("")
        w("| shape | k | plain tg t/s | speculative tg t/s | speed-up | tokens per pass | "
          "pass / plain token |")
        w("|---|---:|---:|---:|---:|---:|---:|")
        for rec in spec:
            for row in (r for r in rec["rows"] if r["test"] == "spec"):
                w("| %s | %d | %.2f ± %.2f | %.2f ± %.2f | %.2fx | %.2f | %.2fx |" % (
                    shape_label(row["model"].replace(".gguf", "")), row["draft"],
                    row["plain_tok_s"], row["plain_tok_s_sd"], row["spec_tok_s"],
                    row["spec_tok_s_sd"], row["speedup"], row["tokens_per_pass"],
                    row["pass_cost"]))
        w("")

    # --- 5. configurations ---
    cfg = {r["name"][7]: r for r in runs if r["name"].startswith("config-")}
    if cfg:
        w("### Configurations A, B, C: the accelerator path on PoCL (kazeia only)")
        w("")
        w("A = CPU only, B = the OpenCL device for everything (op filter `auto`), C = prefill on "
          "the device and decode on the CPU; each in its own process (the flags `kazeia bench "
          "--configs A,B,C` gives its children, run with -o json). The device is PoCL's "
          "`cpu` device on the same 2 vCPUs, so B and C cannot beat A here: the table measures "
          "the OpenCL kernels' quality, the split and the memory cost of a second device, not an "
          "accelerator. %s." % load_span(runs, "config"))
        w("")
        w("```")
        for c in sorted(cfg):
            w(re.sub(r"-m \S*/", "-m ", cfg[c]["command"]))
        w("```")
        w("")
        w("| config | device | test | t/s | TTFT ms | peak RSS MiB | syncs / token | op filter |")
        w("|---|---|---|---:|---:|---:|---:|---|")
        for c in sorted(cfg):
            for row in cfg[c]["rows"]:
                w("| %s | %s | %s | %.2f ± %.2f | %s | %.1f | %.3g | %s |" % (
                    c, row["backend"], row["test"], row["tok_s"], row["tok_s_sd"],
                    fmt(row.get("ttft_ms"), "%.0f"), row["peak_rss_mib"], row["syncs_per_token"],
                    row["op_filter"] or "none"))
        w("")

    # --- 6. peak RSS ---
    if sbs or cfg:
        w("### Peak RSS")
        w("")
        w("Peak resident memory of each benchmark process (kazeia: its own `peak_rss_mib`, the "
          "`--roofline` probe's buffer left out; the reference: `wait4`'s ru_maxrss of its "
          "llama-bench processes, the larger of the pp512 and tg128 ones). Contexts: kazeia 513 "
          "tokens (one state for both tests), the reference 512 (pp) and 128 (tg). Medians over "
          "the rounds; file size for scale.")
        w("")
        if sbs:
            w("| shape | file MiB | kazeia MiB | reference MiB | kazeia - file | reference - file |")
            w("|---|---:|---:|---:|---:|---:|")
            for shape in SHAPES:
                size = next((row["size"] for rec in runs if rec["name"].endswith("kazeia-" + shape)
                             for row in rec["rows"]), None)
                cell_pp, cell_tg = sbs.get((shape, "pp512")), sbs.get((shape, "tg128"))
                if not cell_pp:
                    continue
                k = med(cell_pp["rss"]["kazeia"])
                rr = [max(a_, b_) for a_, b_ in zip(cell_pp["rss"]["reference"],
                                                    (cell_tg or cell_pp)["rss"]["reference"])]
                ref = med(rr)
                f = size / 1048576 if size else None
                w("| %s | %s | %s | %s | %s | %s |" % (
                    shape_label(shape), fmt(f, "%.0f"), fmt(k, "%.0f"), fmt(ref, "%.0f"),
                    fmt(k - f if k and f else None, "%+.0f"),
                    fmt(ref - f if ref and f else None, "%+.0f")))
            w("")
        w("![peak RSS per shape and per configuration](img/bench-rss.png)")
        w("")
        plot_rss(sbs, cfg, runs, os.path.join(img, "bench-rss.png"))

    w("The JSON of every run above: `docs/img/dashboard-runs.json` (command, start, wall time, "
      "load average before and after, peak RSS, the engine's own rows).")
    w(END)

    with open(os.path.join(img, "dashboard-runs.json"), "w") as f:
        json.dump({"machine": meta, "runs": runs}, f, indent=1)
    with open(a.doc) as f:
        doc = f.read()
    block = "\n".join(L)
    if BEGIN in doc and END in doc:
        doc = doc[:doc.index(BEGIN)] + block + doc[doc.index(END) + len(END):]
    else:
        die("no %s ... %s markers in %s" % (BEGIN, END, a.doc))
    with open(a.doc, "w") as f:
        f.write(doc)
    print("rewrote the dashboard in %s, plots in %s" % (a.doc, img), file=sys.stderr)


# ------------------------------------------------------------------------------------------------
# Plots (matplotlib, no display)

def plt_():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    plt.rcParams.update({"font.size": 10, "axes.grid": True, "grid.alpha": 0.3,
                         "axes.axisbelow": True})
    return plt


KAZ, REF = "#1565c0", "#9e9e9e"
FOOTER = ""  # provenance printed under every plot (set by render)


def save(fig, plt, path, top=1.0):
    fig.text(0.005, 0.005, FOOTER, fontsize=7, color="#616161", ha="left", va="bottom")
    fig.tight_layout(rect=(0, 0.035, 1, top))
    fig.savefig(path, dpi=100)
    plt.close(fig)


def plot_sbs(sbs, path):
    plt = plt_()
    shapes = [s for s in SHAPES if (s, "pp512") in sbs]
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.6))
    for ax, test in zip(axes, ("pp512", "tg128")):
        xs = range(len(shapes))
        ks, rs = [], []
        for s in shapes:
            k, ref, _, _ = summarize(sbs[(s, test)]) if (s, test) in sbs else (0, 0, 0, 0)
            ks.append(k or 0)
            rs.append(ref or 0)
        ax.bar([x - 0.2 for x in xs], ks, 0.4, label="kazeia", color=KAZ)
        ax.bar([x + 0.2 for x in xs], rs, 0.4, label="llama.cpp (reference)", color=REF)
        for x, s in zip(xs, shapes):
            _, _, ratio, _ = summarize(sbs[(s, test)]) if (s, test) in sbs else (0, 0, None, 0)
            if ratio:
                ax.annotate("%.2fx" % ratio, (x, max(ks[x], rs[x])), ha="center", va="bottom",
                            fontsize=9, xytext=(0, 3), textcoords="offset points")
        ax.set_xticks(list(xs))
        ax.set_xticklabels([shape_label(s).replace(" ", "\n") for s in shapes], fontsize=9)
        ax.set_ylabel("tokens / s")
        ax.set_title("%s (%s)" % (test, "prompt, one batch" if test == "pp512" else "decode"))
        ax.set_ylim(0, max(ks + rs) * 1.15)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", ncol=2, bbox_to_anchor=(0.5, 0.93),
               frameon=False)
    fig.suptitle("kazeia vs llama.cpp, same GGUF files, medians (ratio = median of per-round ratios)")
    save(fig, plt, path, top=0.88)


def plot_depth(dep, path):
    plt = plt_()
    fig, ax = plt.subplots(figsize=(7.5, 4.2))
    styles = {DEPTH_SHAPES[0]: ("-", "o"), DEPTH_SHAPES[1]: ("--", "s")}
    for shape in DEPTH_SHAPES:
        for engine, color in (("kazeia", KAZ), ("reference", REF)):
            xs, ys = [], []
            for d in DEPTHS:
                cell = dep.get((shape, "tg32" + (" @ d%d" % d if d else "")))
                if cell and cell[engine]:
                    xs.append(d)
                    ys.append(med(list(cell[engine].values())))
            if xs:
                line, marker = styles.get(shape, ("-", "o"))
                ax.plot(xs, ys, line, marker=marker, color=color,
                        label="%s, %s" % ("kazeia" if engine == "kazeia" else "llama.cpp",
                                          shape_label(shape)))
    ax.set_xlabel("context depth (tokens in the cache before decoding)")
    ax.set_ylabel("tg32 tokens / s")
    ax.set_xticks(DEPTHS)
    ax.set_ylim(bottom=0)
    ax.set_title("Decode speed against context depth (K/V f16)")
    ax.legend(fontsize=8)
    save(fig, plt, path)


def plot_chat(rows, path):
    plt = plt_()
    turns = [r["turn"] for r in rows]
    get = lambda key: [r[key] for r in rows]
    fig, ax = plt.subplots(figsize=(7.5, 4.2))
    ax.plot(turns, get("ttft_recompute_ms"), marker="o", color=REF,
            label="whole history recomputed (kazeia, reuse off)")
    ax.plot(turns, get("ttft_reuse_ms"), marker="o", color=KAZ, label="prefix reused (kazeia)")
    ax.plot(turns, get("ttft_alone_ms"), ":", color="#2e7d32",
            label="new tokens alone, at position 0")
    for t, rec, reu in zip(turns, get("ttft_recompute_ms"), get("ttft_reuse_ms")):
        ax.annotate("%.1fx" % (rec / reu), (t, rec), ha="center", va="bottom", fontsize=9,
                    xytext=(0, 4), textcoords="offset points")
    ax.set_xticks(turns)
    ax.set_xlabel("turn (each adds ~200 tokens to the history)")
    ax.set_ylabel("time to first token, ms")
    ax.set_ylim(0, max(get("ttft_recompute_ms")) * 1.15)
    ax.set_title("TTFT per turn, with and without prefix reuse (%s)" % shape_label(CHAT_SHAPE))
    ax.legend(fontsize=9)
    save(fig, plt, path)


def plot_rss(sbs, cfg, runs, path):
    plt = plt_()
    panels = (1 if sbs else 0) + (1 if cfg else 0)
    fig, axes = plt.subplots(1, panels, figsize=(5.5 * panels + 0.5, 4.2), squeeze=False)
    axes = list(axes[0])
    if sbs:
        ax = axes.pop(0)
        shapes = [s for s in SHAPES if (s, "pp512") in sbs]
        ks, rs, fs = [], [], []
        for s in shapes:
            pp, tg = sbs[(s, "pp512")], sbs.get((s, "tg128"), sbs[(s, "pp512")])
            ks.append(med(pp["rss"]["kazeia"]) or 0)
            rs.append(med([max(x, y) for x, y in zip(pp["rss"]["reference"],
                                                      tg["rss"]["reference"])]) or 0)
            size = next((row["size"] for rec in runs if rec["name"].endswith("kazeia-" + s)
                         for row in rec["rows"]), 0)
            fs.append(size / 1048576)
        xs = range(len(shapes))
        ax.bar([x - 0.2 for x in xs], ks, 0.4, color=KAZ, label="kazeia")
        ax.bar([x + 0.2 for x in xs], rs, 0.4, color=REF, label="llama.cpp")
        ax.scatter(list(xs), fs, marker="_", s=400, color="black", zorder=3, label="file size")
        ax.set_xticks(list(xs))
        ax.set_xticklabels([shape_label(s).replace(" ", "\n") for s in shapes], fontsize=9)
        ax.set_ylabel("peak RSS, MiB")
        for x, v in zip(xs, ks):
            ax.annotate("%.0f" % v, (x - 0.2, v), ha="center", va="bottom", fontsize=8,
                        xytext=(0, 2), textcoords="offset points")
        ax.set_title("pp512 + tg128 run, per shape")
        ax.set_ylim(0, max(ks + rs) * 1.12)
        ax.legend(fontsize=8, loc="upper left")
    if cfg:
        ax = axes.pop(0)
        names = sorted(cfg)
        vals = [max(row["peak_rss_mib"] for row in cfg[c]["rows"]) for c in names]
        labels = {"A": "A: CPU only", "B": "B: OpenCL\nfor everything",
                  "C": "C: OpenCL prefill,\nCPU decode"}
        bars = ax.bar(range(len(names)), vals, 0.55, color=["#1565c0", "#ef6c00", "#2e7d32"])
        for b, v in zip(bars, vals):
            ax.annotate("%.0f" % v, (b.get_x() + b.get_width() / 2, v), ha="center",
                        va="bottom", fontsize=9, xytext=(0, 2), textcoords="offset points")
        ax.set_xticks(range(len(names)))
        ax.set_xticklabels([labels[c] for c in names], fontsize=9)
        ax.set_ylabel("peak RSS, MiB")
        ax.set_title("configurations, %s (PoCL)" % shape_label(CONFIG_SHAPE))
        ax.set_ylim(0, max(vals) * 1.15)
    save(fig, plt, path)


def ensure_matplotlib():
    """Debian's python3-matplotlib serves /usr/bin/python3; another python3 first on PATH (pyenv,
    a venv) may lack it: then run again under the system's."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        system = "/usr/bin/python3"
        if os.path.exists(system) and os.path.realpath(sys.executable) != os.path.realpath(system):
            os.execv(system, [system] + sys.argv)
        die("no matplotlib: apt-get install python3-matplotlib")


def main():
    ensure_matplotlib()
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="\n".join(__doc__.split("\n")[1:]))
    p.add_argument("mode", choices=["run", "render"])
    p.add_argument("dir", nargs="?", default=os.path.join(ROOT, "build-dashboard", "results"))
    p.add_argument("--kazeia", default=os.environ.get("KAZEIA", os.path.join(ROOT, "build", "kazeia")))
    p.add_argument("--reference", default=os.environ.get(
        "REFERENCE", os.path.join(ROOT, "..", "reference", "llama.cpp", "build", "bin")))
    p.add_argument("--models", default=os.path.join(ROOT, "..", "bench-models"))
    p.add_argument("-r", "--reps", type=int, default=3)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--depth-rounds", type=int, default=1)
    p.add_argument("-t", "--threads", type=int, default=2)
    p.add_argument("--device", default="opencl:0")
    p.add_argument("--only", default="sbs,depth,chat,spec,configs")
    p.add_argument("--commit", help="the kazeia commit the binary was built from (default: this "
                   "work tree's HEAD, +dirty if tracked files differ from it)")
    p.add_argument("--load-note", help="what else ran on the machine (kept with the runs)")
    p.add_argument("--doc", default=os.path.join(ROOT, "docs", "benchmarks.md"))
    p.add_argument("--img", default=os.path.join(ROOT, "docs", "img"))
    a = p.parse_args()
    if a.mode == "run":
        start = time.time()
        run_all(a)
        render(a)
        print("dashboard.py run took %.0f s" % (time.time() - start), file=sys.stderr)
    else:
        render(a)


if __name__ == "__main__":
    main()
