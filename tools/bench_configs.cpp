// kazeia bench --configs A,B,C: the configuration matrix side by side. Each configuration runs
// the same bench in a child process of its own (this binary, csv output), so that the peak RSS
// it reports is its own.
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <sstream>

#include "base/error.h"
#include "bench.h"

namespace kz::cli {
namespace {

struct Config {
  char name;
  const char* what;
};

constexpr Config kConfigs[] = {
    {'A', "CPU only"},
    {'B', "the device for everything, with the op filter"},
    {'C', "prefill on the device, decode on the CPU"},
};

// The flags that make a bench run configuration `c` (later flags override earlier ones).
std::vector<std::string> config_flags(char c, const BenchConfigArgs& a) {
  const std::string filter = a.op_filter.empty() ? "auto" : a.op_filter;
  switch (c) {
    case 'A':
      return {"--device",        "cpu", "--prefill-device", "",
              "--decode-device", "",    "--op-filter",      "none"};
    case 'B':
      return {"--prefill-device", "", "--decode-device", "", "--op-filter", filter};
    default:
      return {"--prefill-device", a.device, "--decode-device", "cpu", "--op-filter", filter};
  }
}

// Runs this binary with `args` (its last one names the configuration); returns its standard
// output, throws if it fails. The child only execs: nothing of this process runs in it.
std::string run_self(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (const std::string& s : args) argv.push_back(const_cast<char*>(s.c_str()));
  argv.push_back(nullptr);
  std::fflush(stdout);
  int fds[2];
  if (pipe(fds) != 0) fail("bench --configs: cannot create a pipe");
  const pid_t pid = fork();
  if (pid < 0) fail("bench --configs: cannot start a child process");
  if (pid == 0) {
    dup2(fds[1], STDOUT_FILENO);
    close(fds[0]);
    close(fds[1]);
    execv("/proc/self/exe", argv.data());
    _exit(127);
  }
  close(fds[1]);
  std::string out;
  char buf[4096];
  for (;;) {
    const ssize_t n = read(fds[0], buf, sizeof buf);
    if (n > 0) out.append(buf, size_t(n));
    if (n == 0 || (n < 0 && errno != EINTR)) break;
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  const std::string config = "bench --configs: configuration " + args.back();
  if (WIFSIGNALED(status)) fail(config, " was killed by signal ", WTERMSIG(status));
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127) fail(config, ": cannot run /proc/self/exe");
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    fail(config, " failed (exit ", WEXITSTATUS(status), "; its error is above)");
  return out;
}

std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream in(line);
  for (std::string f; std::getline(in, f, ',');) out.push_back(f);
  return out;
}

}  // namespace

int run_bench_configs(const BenchConfigArgs& a) {
  std::vector<char> wanted;
  for (std::stringstream in(a.configs); in.good();) {
    std::string c;
    std::getline(in, c, ',');
    if (c.size() != 1 || c[0] < 'A' || c[0] > 'C')
      fail("invalid configuration '", c, "' in --configs (expected A, B or C)");
    wanted.push_back(c[0]);
    if (c[0] != 'A' && (a.device == "cpu" || a.device == "none"))
      fail("--configs ", c, " runs --device against the CPU: give a device (e.g. --device opencl)");
  }
  std::printf(
      "| config | device | model | test | t/s | ttft ms | peak RSS MiB | syncs/tok | op "
      "filter |\n|---|---|---|---|---:|---:|---:|---:|---|\n");
  for (char c : wanted) {
    std::vector<std::string> args = {"kazeia", "bench"};
    args.insert(args.end(), a.args.begin(), a.args.end());
    for (const std::string& f : config_flags(c, a)) args.push_back(f);
    for (const char* f : {"--configs", "", "-o", "csv", "--marker"}) args.push_back(f);
    args.push_back(std::string(1, c));
    std::stringstream csv(run_self(args));
    std::string line;
    std::getline(csv, line);  // header
    while (std::getline(csv, line)) {
      // model,size,type,backend,threads,kv,test,tok_s,tok_s_sd,ttft_ms_or_roofline_pct,
      // peak_rss_mib,syncs_per_token,bytes_per_token,op_filter
      const std::vector<std::string> f = split_csv(line);
      if (f.size() < 14) continue;
      const bool pp = f[6].rfind("pp", 0) == 0;
      std::string filter = f[13];  // the filter's own entries are joined by commas
      for (size_t i = 14; i < f.size(); ++i) filter += "," + f[i];
      std::printf("| %c | %s | %s | %s | %s ± %s | %s | %s | %s | %s |\n", c, f[3].c_str(),
                  f[0].c_str(), f[6].c_str(), f[7].c_str(), f[8].c_str(), pp ? f[9].c_str() : "-",
                  f[10].c_str(), f[11].c_str(), filter.c_str());
    }
  }
  std::printf("\n");
  for (char c : wanted)
    for (const Config& k : kConfigs)
      if (k.name == c) std::printf("%c: %s\n", c, k.what);
  return 0;
}

}  // namespace kz::cli
