// aliasfuzz slurm: a fuzz campaign as a Slurm job array over shards, plus a
// dependent job that merges the shards.
//
//   aliasfuzz slurm --array N [fuzz options] --out DIR [--partition P]
//                   [--sbatch-option OPT]... [--fuzz-option ARG]... [--binary PATH] [--resume]
//                   [--submit | --print]
//
// Writes DIR/slurm/fuzz.sbatch (task i of the array runs `aliasfuzz fuzz
// --shard i/N --out DIR/shard-i`) and DIR/slurm/merge.sbatch (`aliasfuzz
// merge DIR/shard-0 ... --out DIR`), and copies the running binary to
// DIR/slurm/bin/aliasfuzz so that every task runs the same program from the
// shared filesystem, whatever is rebuilt meanwhile. --submit submits the
// array and then the merge job with --dependency=afterany:ARRAY and prints
// both job ids (also written to DIR/slurm/jobs.json); --print prints the
// scripts. Without either, the scripts are written and the command to
// submit them is printed.
//
//   aliasfuzz slurm --kit KIT --array N --out DIR [--partition P] [--sbatch-option OPT]... [--submit | --print]
//
// ships a device kit instead (run_kit below): the tasks run the kit's
// runner, which needs no aliasfuzz, Halide or compiler on the node.
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "lowering/kit.h"
#include "run/vocabulary.h"
#include "tools/commands.h"
#include "tools/run_flags.h"

namespace af::tools {

namespace {

namespace fs = std::filesystem;

struct SlurmArgs {
  int array = 0;
  std::string out, partition, binary;
  std::vector<std::string> sbatch_options;
  bool submit = false, print = false, resume = false;
  // Fuzz options, forwarded only when given.
  std::string time_s, programs, seed, target, case_timeout, size, torch;
  int jobs = 1;
  bool seed_given = false, quiet = false, checked = false, recall = false;
  std::vector<std::string> strategies, injects;
  std::vector<std::string> fuzz_options;  // passed on verbatim
  std::string kit;                        // --kit: tasks run this kit's runner instead
};

// A word for bash: single-quoted unless it is plainly safe.
std::string q(const std::string& s) {
  bool plain = !s.empty();
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || std::string("/._-+=:,@%").find(c) != std::string::npos))
      plain = false;
  if (plain) return s;
  std::string r = "'";
  for (char c : s) r += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return r + "'";
}

bool write_text(const std::string& path, const std::string& text, bool executable) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!(f << text) || !(f.flush())) {
    std::cerr << "aliasfuzz slurm: cannot write " << path << "\n";
    return false;
  }
  f.close();
  if (executable)
    fs::permissions(path, fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                    fs::perm_options::add);
  return true;
}

// Runs argv (no shell), returns its exit status and its stdout in *out.
int run_capture(const std::vector<std::string>& argv, std::string* out) {
  int fds[2];
  if (pipe(fds) != 0) return -1;
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    ::close(fds[0]);
    dup2(fds[1], 1);
    ::close(fds[1]);
    std::vector<char*> a;
    for (const auto& s : argv) a.push_back(const_cast<char*>(s.c_str()));
    a.push_back(nullptr);
    execvp(a[0], a.data());
    std::fprintf(stderr, "aliasfuzz slurm: cannot run %s\n", a[0]);
    _exit(127);
  }
  ::close(fds[1]);
  char buf[4096];
  ssize_t n;
  while ((n = ::read(fds[0], buf, sizeof buf)) > 0) out->append(buf, static_cast<size_t>(n));
  ::close(fds[0]);
  int st = 0;
  waitpid(pid, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

// `sbatch --parsable` prints "ID" or "ID;CLUSTER".
std::string job_id(std::string s) {
  s = s.substr(0, s.find_first_of(";\n"));
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return "";
  return s;
}

std::string header(const SlurmArgs& a, const std::string& name, const std::string& log, int cpus) {
  std::string h = "#!/bin/bash\n";
  h += "#SBATCH --job-name=" + name + "\n";
  h += "#SBATCH --output=" + log + "\n";
  h += "#SBATCH --ntasks=1\n";
  h += "#SBATCH --cpus-per-task=" + std::to_string(cpus) + "\n";
  if (!a.partition.empty()) h += "#SBATCH --partition=" + a.partition + "\n";
  for (const auto& o : a.sbatch_options) h += "#SBATCH " + o + "\n";
  return h;
}

// Writes DIR/slurm/{fuzz,merge}.sbatch, then prints them (--print), prints
// how to submit them, or submits the array and the merge job (afterany).
int write_and_submit(const SlurmArgs& a, const std::string& d, const std::string& fuzz, const std::string& merge,
                     const std::string& n, const std::string& merge_by_hand) {
  const std::string fuzz_path = d + "/slurm/fuzz.sbatch", merge_path = d + "/slurm/merge.sbatch";
  if (!write_text(fuzz_path, fuzz, true) || !write_text(merge_path, merge, true)) return 2;
  std::cerr << "aliasfuzz slurm: seed " << a.seed << ", " << a.array << " shards, out " << d << "\n";

  if (a.print) {
    std::cout << "# " << fuzz_path << "\n" << fuzz << "\n# " << merge_path << "\n" << merge;
    return 0;
  }
  if (!a.submit) {
    std::cout << "wrote " << fuzz_path << " and " << merge_path << "\n"
              << "submit: jid=$(sbatch --parsable " << q(fuzz_path) << ") && sbatch --dependency=afterany:${jid%%;*} "
              << q(merge_path) << "\n";
    return 0;
  }
  std::string o1, o2;
  int rc = run_capture({"sbatch", "--parsable", fuzz_path}, &o1);
  const std::string array_id = job_id(o1);
  if (rc != 0 || array_id.empty()) {
    std::cerr << "aliasfuzz slurm: sbatch " << fuzz_path << " failed (status " << rc << "): " << o1 << "\n";
    return 2;
  }
  rc = run_capture({"sbatch", "--parsable", "--dependency=afterany:" + array_id, merge_path}, &o2);
  const std::string merge_id = job_id(o2);
  if (rc != 0 || merge_id.empty()) {
    std::cerr << "aliasfuzz slurm: sbatch " << merge_path << " failed (status " << rc << "): " << o2
              << "\naliasfuzz slurm: the array job " << array_id
              << " is submitted; merge by hand afterwards: " << merge_by_hand << "\n";
    return 2;
  }
  write_text(
      d + "/slurm/jobs.json",
      "{\"array\": " + array_id + ", \"merge\": " + merge_id + ", \"shards\": " + n + ", \"seed\": " + a.seed + "}\n",
      false);
  std::cout << "array job " << array_id << " (" << n << " tasks), merge job " << merge_id << " (afterany:" << array_id
            << ")\n"
            << "results: " << d << (a.kit.empty() ? "/report.md" : "/summary.txt") << " once job " << merge_id
            << " is done; logs: " << d << "/slurm/logs/\n";
  return 0;
}

// --kit KIT: task i runs the kit's runner on programs k % N == i (a GPU
// node needs no aliasfuzz, no Halide and no compiler); the merge job joins
// the shards' summaries into DIR/summary.txt and fails when a shard is
// missing or reported failures. The kit is copied to DIR/slurm/kit.
int run_kit(SlurmArgs& a, const std::string& d) {
  if (!a.programs.empty() || !a.time_s.empty() || a.seed_given || !a.target.empty() || !a.strategies.empty() ||
      !a.torch.empty() || !a.injects.empty() || !a.case_timeout.empty() || !a.size.empty() || !a.fuzz_options.empty() ||
      !a.binary.empty() || a.jobs != 1) {
    std::cerr << "aliasfuzz slurm: --kit takes no fuzz options (the kit fixes its programs, strategies and target)\n";
    return 2;
  }
  lowering::Kit kit;
  std::vector<float> floats;
  if (std::string e = lowering::read_kit(a.kit, &kit, &floats); !e.empty()) {
    std::cerr << "aliasfuzz slurm: --kit " << a.kit << ": " << e << "\n";
    return 2;
  }
  a.seed = std::to_string(kit.seed);
  if (!a.resume)
    for (int i = 0; i < a.array; ++i)
      if (fs::exists(d + "/shard-" + std::to_string(i) + "/results.json")) {
        std::cerr << "aliasfuzz slurm: " << d << "/shard-" << i
                  << " already holds results: use --resume to run it again, or another --out\n";
        return 2;
      }
  std::error_code ec;
  fs::create_directories(d + "/slurm/logs", ec);
  const std::string copy = d + "/slurm/kit", tmp = copy + ".tmp";
  fs::remove_all(tmp, ec);
  fs::copy(a.kit, tmp, fs::copy_options::recursive, ec);
  fs::remove(tmp + "/results.json", ec);
  if (!ec) fs::remove_all(copy, ec);
  if (!ec) fs::rename(tmp, copy, ec);
  if (ec) {
    std::cerr << "aliasfuzz slurm: cannot copy the kit " << a.kit << " to " << copy << ": " << ec.message() << "\n";
    return 2;
  }
  // A GPU kit asks for a GPU unless an --sbatch-option already does.
  bool asks_gpu = false;
  for (const auto& o : a.sbatch_options) asks_gpu |= o.rfind("--gres", 0) == 0 || o.rfind("--gpus", 0) == 0;
  const auto kit_target = run::parse_target(kit.target);
  if (kit_target != run::Target::Host && !asks_gpu) a.sbatch_options.push_back("--gres=gpu:1");

  const std::string n = std::to_string(a.array), name = "aliasfuzz-kit-" + kit.target;
  std::string task = header(a, name, d + "/slurm/logs/kit-%A_%a.log", 1);
  task += "#SBATCH --array=0-" + std::to_string(a.array - 1) + "\n";
  task += "# Written by `aliasfuzz slurm --kit`: task i runs the " + kit.target + " kit's runner on programs k with\n" +
          "# k % " + n + " == i into " + d + "/shard-i (results.json, summary.txt).\n";
  task += "set -uo pipefail\n";
  task += "i=${SLURM_ARRAY_TASK_ID:?run this script with sbatch (it is a job array)}\n";
  task += "out=" + q(d) + "/shard-$i\n";
  task += "mkdir -p \"$out\"\n";
  task += "echo \"aliasfuzz slurm: kit shard $i/" + n + " on $(hostname) into $out\"\n";
  task += q(copy) + "/run --shard \"$i/" + n + "\" --out \"$out\" >\"$out/summary.txt\"\n";
  task += "rc=$?\ncat \"$out/summary.txt\"\nexit $rc\n";

  std::string merge = header(a, name + "-merge", d + "/slurm/logs/merge-%j.log", 1);
  merge +=
      "# Written by `aliasfuzz slurm --kit`: runs after every task of the array (afterany)\n"
      "# and joins the shards' summaries into " +
      d + "/summary.txt.\n";
  merge += "set -uo pipefail\n";
  merge += "rc=0\nfailures=0\n: >" + q(d) + "/summary.txt.tmp\n";
  merge += "for i in $(seq 0 " + std::to_string(a.array - 1) + "); do\n";
  merge += "  s=" + q(d) + "/shard-$i\n";
  merge += "  if [[ ! -f \"$s/results.json\" ]]; then echo \"shard $i: no results ($s)\" | tee -a " + q(d) +
           "/summary.txt.tmp >&2; rc=1; continue; fi\n";
  merge += "  { echo \"shard $i:\"; cat \"$s/summary.txt\"; } >>" + q(d) + "/summary.txt.tmp\n";
  merge += "  f=$(sed -n 's/.*failures (must-agree, missing, error) \\([0-9]*\\).*/\\1/p' \"$s/summary.txt\")\n";
  merge += "  failures=$((failures + ${f:-1}))\n";
  merge += "done\n";
  merge += "echo \"kit " + kit.target + ": " + n + " shards, failures (must-agree, missing, error) $failures\" >>" +
           q(d) + "/summary.txt.tmp\n";
  merge += "mv " + q(d) + "/summary.txt.tmp " + q(d) + "/summary.txt\ncat " + q(d) + "/summary.txt\n";
  merge += "if [[ $failures -ne 0 ]]; then rc=1; fi\nexit $rc\n";
  return write_and_submit(a, d, task, merge, n, "sbatch " + d + "/slurm/merge.sbatch");
}

int run(SlurmArgs& a) {
  if (a.array < 1) {
    std::cerr << "aliasfuzz slurm: --array N needs N >= 1\n";
    return 2;
  }
  if (a.jobs < 1) {
    std::cerr << "aliasfuzz slurm: --jobs must be at least 1\n";
    return 2;
  }
  if (a.submit && a.print) {
    std::cerr << "aliasfuzz slurm: --submit and --print exclude each other\n";
    return 2;
  }
  if (a.out.empty()) {
    std::cerr << "aliasfuzz slurm: --out DIR is required (a folder on a filesystem every node shares)\n";
    return 2;
  }
  // Every shard must use the same seed: pick it now.
  if (!a.seed_given && a.kit.empty()) a.seed = std::to_string(static_cast<uint64_t>(std::time(nullptr)));
  std::error_code ec;
  std::string d = fs::absolute(a.out, ec).lexically_normal().string();
  while (d.size() > 1 && d.back() == '/') d.pop_back();
  for (char ch : d)
    if (std::isspace(static_cast<unsigned char>(ch)) || ch == '"' || ch == '\'' || ch == '\\') {
      std::cerr << "aliasfuzz slurm: the output folder " << d
                << " must not contain spaces or quotes (#SBATCH lines cannot hold them)\n";
      return 2;
    }
  if (!a.kit.empty()) return run_kit(a, d);
  if (!a.resume) {
    for (int i = 0; i < a.array; ++i)
      if (fs::exists(d + "/shard-" + std::to_string(i) + "/state.json")) {
        std::cerr << "aliasfuzz slurm: " << d << "/shard-" << i
                  << " already holds a campaign: use --resume to continue it, or another --out\n";
        return 2;
      }
  }
  fs::create_directories(d + "/slurm/logs", ec);
  fs::create_directories(d + "/slurm/bin", ec);
  if (ec) {
    std::cerr << "aliasfuzz slurm: cannot create " << d << "/slurm: " << ec.message() << "\n";
    return 2;
  }

  // The program every task runs: a copy of this binary (or --binary) on the
  // shared filesystem, by absolute path.
  std::string bin;
  {
    const std::string src =
        a.binary.empty() ? fs::canonical("/proc/self/exe", ec).string() : fs::canonical(a.binary, ec).string();
    if (ec) {
      std::cerr << "aliasfuzz slurm: cannot find the aliasfuzz binary: " << ec.message() << "\n";
      return 2;
    }
    bin = d + "/slurm/bin/aliasfuzz";
    const std::string tmp = bin + ".tmp";
    fs::remove(tmp, ec);
    fs::copy_file(src, tmp, fs::copy_options::overwrite_existing, ec);
    if (!ec)
      fs::permissions(tmp,
                      fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec | fs::perms::others_read |
                          fs::perms::others_exec,
                      ec);
    if (!ec) fs::rename(tmp, bin, ec);  // a running task keeps its old inode
    if (ec) {
      std::cerr << "aliasfuzz slurm: cannot copy " << src << " to " << bin << ": " << ec.message() << "\n";
      return 2;
    }
  }

  std::vector<std::string> fuzz_args = {"--seed", a.seed, "--jobs", std::to_string(a.jobs)};
  if (!a.programs.empty()) fuzz_args.insert(fuzz_args.end(), {"--programs", a.programs});
  if (!a.time_s.empty()) fuzz_args.insert(fuzz_args.end(), {"--time", a.time_s});
  // Every shard runs the torch resolved here, whatever its node has newest.
  if (auto e = flags::resolve_torch(a.strategies, a.torch); !e.empty()) {
    std::cerr << "aliasfuzz slurm: " << e << "\n";
    return 2;
  }
  for (const auto& s : a.strategies) fuzz_args.insert(fuzz_args.end(), {"--strategy", s});
  for (const auto& m : a.injects) fuzz_args.insert(fuzz_args.end(), {"--inject", m});
  if (!a.target.empty()) fuzz_args.insert(fuzz_args.end(), {"--target", a.target});
  if (a.checked) fuzz_args.push_back("--checked");
  if (a.recall) fuzz_args.push_back("--recall");
  if (!a.case_timeout.empty()) fuzz_args.insert(fuzz_args.end(), {"--case-timeout", a.case_timeout});
  if (!a.size.empty()) fuzz_args.insert(fuzz_args.end(), {"--size", a.size});
  if (a.quiet) fuzz_args.push_back("--quiet");
  for (const auto& o : a.fuzz_options) fuzz_args.push_back(o);
  std::string fuzz_line;
  for (const auto& s : fuzz_args) fuzz_line += " " + q(s);
  {
    // Every task would fail on a bad fuzz option: the binary the tasks run
    // checks them here first (its message on stderr).
    const std::string check = q(bin) + " fuzz" + fuzz_line + " --shard 0/" + std::to_string(a.array) + " --out " +
                              q(d) + "/shard-0 --check-options";
    if (std::system(check.c_str()) != 0) {
      std::cerr << "aliasfuzz slurm: the fuzz options above are invalid; no scripts written\n";
      return 2;
    }
  }

  const std::string n = std::to_string(a.array);
  const std::string name = "aliasfuzz-" + a.seed;
  std::string env;
  if (const char* root = std::getenv("AF_ROOT")) env = "export AF_ROOT=" + q(root) + "\n";

  std::string fuzz = header(a, name, d + "/slurm/logs/fuzz-%A_%a.log", a.jobs);
  fuzz += "#SBATCH --array=0-" + std::to_string(a.array - 1) + "\n";
  fuzz += "# Written by `aliasfuzz slurm`: task i checks programs k with k % " + n + " == i of seed " + a.seed +
          "\n# into " + d + "/shard-i; a requeued task resumes its shard.\n";
  fuzz += "set -euo pipefail\n" + env;
  fuzz += "i=${SLURM_ARRAY_TASK_ID:?run this script with sbatch (it is a job array)}\n";
  fuzz += "out=" + q(d) + "/shard-$i\n";
  fuzz += "resume=()\n";
  fuzz += "if [[ -f \"$out/state.json\" ]]; then resume=(--resume); fi\n";
  fuzz += "echo \"aliasfuzz slurm: shard $i/" + n + " on $(hostname) into $out\"\n";
  fuzz += "exec " + q(bin) + " fuzz --shard \"$i/" + n + "\" --out \"$out\"" + fuzz_line +
          " ${resume[@]+\"${resume[@]}\"}\n";

  std::string merge = header(a, name + "-merge", d + "/slurm/logs/merge-%j.log", 1);
  merge +=
      "# Written by `aliasfuzz slurm`: runs after every task of the array (afterany)\n"
      "# and merges the shards that exist into " +
      d + ".\n";
  merge += "set -uo pipefail\n" + env;
  merge += "shards=()\nmissing=0\n";
  merge += "for i in $(seq 0 " + std::to_string(a.array - 1) + "); do\n";
  merge += "  s=" + q(d) + "/shard-$i\n";
  merge +=
      "  if [[ -f \"$s/state.json\" ]]; then shards+=(\"$s\"); "
      "else echo \"aliasfuzz slurm: shard $i has no results ($s)\" >&2; missing=1; fi\n";
  merge += "done\n";
  merge += "if [[ ${#shards[@]} -eq 0 ]]; then echo \"aliasfuzz slurm: no shard to merge\" >&2; exit 1; fi\n";
  merge += q(bin) + " merge \"${shards[@]}\" --out " + q(d) + "\n";
  merge += "rc=$?\n";
  merge += "if [[ $rc -eq 0 && $missing -ne 0 ]]; then rc=1; fi\n";
  merge += "echo \"aliasfuzz slurm: merged ${#shards[@]} of " + n + " shards into " + d + " (status $rc)\"\n";
  merge += "exit $rc\n";

  return write_and_submit(a, d, fuzz, merge, n, bin + " merge " + d + "/shard-* --out " + d);
}

}  // namespace

void register_slurm(Command& app, int* status) {
  auto a = std::make_shared<SlurmArgs>();
  auto* c = app.add_subcommand("slurm", "run a fuzz campaign as a Slurm job array over shards, then merge");
  c->add_option("--array", a->array, "number of shards (array tasks)")->required();
  c->add_option("--out", a->out, "output folder on a filesystem shared by every node")->required();
  c->add_option("--partition", a->partition, "Slurm partition");
  c->add_option("--sbatch-option", a->sbatch_options, "an extra #SBATCH line, e.g. --time=02:00:00 (repeatable)");
  c->add_option("--binary", a->binary,
                "the aliasfuzz binary the tasks run (default: this one; copied into DIR/slurm/bin)");
  c->add_option(
      "--kit", a->kit,
      "a device kit (aliasfuzz kit): each task runs its runner on a share of its programs, not aliasfuzz fuzz");
  c->add_flag("--resume", a->resume, "allow shards that already exist in --out (their tasks resume them)");
  auto* sub = c->add_flag("--submit", a->submit, "submit the array and the merge job with sbatch; print the job ids");
  auto* pr = c->add_flag("--print", a->print, "only write the scripts, and print them");
  sub->excludes(pr);
  // Fuzz options, as `aliasfuzz fuzz` takes them.
  c->add_option("--time", a->time_s, "seconds each shard runs (fuzz default 60)")->positive();
  c->add_option("--programs", a->programs, "check programs [0, N) over all shards")->check(unsigned_integer);
  c->add_option("--seed", a->seed, "campaign seed (default: the clock; printed)")
      ->check(unsigned_integer)
      ->each([a](const std::string&) { a->seed_given = true; });
  c->add_option("--jobs", a->jobs, "worker processes per shard (= --cpus-per-task)");
  flags::strategies(c, a->strategies, "passed to every shard's aliasfuzz fuzz");
  flags::torch(c, a->torch);
  flags::injects(c, a->injects, "passed to every shard's aliasfuzz fuzz");
  flags::target(c, a->target, "default interp");
  flags::checked(c, a->checked);
  flags::recall(c, a->recall);
  c->add_option("--case-timeout", a->case_timeout, "seconds before a case counts as a hang");
  c->add_option("--size", a->size, "statements per generated program");
  c->add_flag("--quiet", a->quiet, "no status lines in the task logs");
  c->add_option("--fuzz-option", a->fuzz_options,
                "one more argument for every `aliasfuzz fuzz`, verbatim, e.g. --fuzz-option=--size=20 (repeatable)");
  c->callback([a, status] { *status = run(*a); });
}

}  // namespace af::tools
