#include "evaluator/oracle_client.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "core/child_process.h"
#include "core/secrets.h"
#include "core/time.h"

namespace kf::eval {

OracleClient::OracleClient(std::string python, std::string script, std::string log_path,
                           std::map<std::string, std::string> env_overrides)
    : python_(std::move(python)),
      script_(std::move(script)),
      log_path_(std::move(log_path)),
      env_overrides_(std::move(env_overrides)) {}

OracleClient::~OracleClient() { stop(); }

namespace {

// kforge's environment without what looks like a credential: the oracle runs the problem file's code.
std::map<std::string, std::string> environment_without_secrets() {
  std::map<std::string, std::string> env;
  for (auto& [name, value] : environment_with({{"PYTHONUNBUFFERED", "1"}, {"PYTHONDONTWRITEBYTECODE", "1"}})) {
    std::string upper = name;
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    bool secret = secrets::redact(value) != value;
    for (const char* word : {"KEY", "TOKEN", "SECRET", "PASSWORD", "CREDENTIAL"})
      secret = secret || upper.find(word) != std::string::npos;
    if (!secret) env[name] = value;
  }
  return env;
}

// Looser limits than a candidate's: the oracle lives as long as its evaluator (a campaign can run for
// days) and holds the problem's inputs and references.
sandbox::Limits oracle_limits() {
  sandbox::Limits l;
  const double month_s = 30.0 * 24 * 3600;
  l.wall_s = month_s;
  l.cpu_s = month_s * std::max(1u, std::thread::hardware_concurrency());
  l.file_size_bytes = 64ull << 30;
  l.open_files = 4096;
  l.processes = 4096;  // torch's thread pools count against the cgroup's pids limit
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  l.memory_bytes =
      pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) / 10 * 9 : 64ull << 30;
  l.output_bytes = 64 << 10;  // its output goes to its log; this is only what escapes before that
  return l;
}

}  // namespace

void OracleClient::stop() {
  channel_.close();
  if (job_) {
    job_->kill();
    (void)job_->wait();
    job_.reset();
  }
}

std::string OracleClient::log_tail() const {
  std::ifstream in(log_path_);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  return s.size() > 2000 ? s.substr(s.size() - 2000) : s;
}

Status OracleClient::start() {
  int in[2], out[2];
  if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0)
    return make_error("oracle.harness", std::string("cannot create pipes for the oracle: ") + std::strerror(errno));
  sandbox::Spec spec;
  spec.argv = {python_, "-u",     script_, "--in-fd", std::to_string(in[0]), "--out-fd", std::to_string(out[1]),
               "--log", log_path_};
  spec.env = environment_without_secrets();
  for (const auto& [name, value] : env_overrides_) spec.env[name] = value;
  spec.workdir = std::filesystem::path(log_path_).parent_path().string();
  spec.pass_fds = {in[0], out[1]};
  spec.profile = sandbox::Profile::oracle;
  spec.namespaces = false;
  spec.run_as_uid = static_cast<uint32_t>(geteuid());
  spec.run_as_gid = static_cast<uint32_t>(getegid());
  spec.limits = oracle_limits();
  auto job = sandbox::Job::start(spec);
  close(in[0]);
  close(out[1]);
  if (!job.ok()) {
    close(in[1]);
    close(out[0]);
    return make_error("oracle.harness", "cannot start the oracle: " + job.error().message);
  }
  job_ = std::make_unique<sandbox::Job>(std::move(*job));
  // The oracle is trusted: its bounds only keep a broken one from exhausting the supervisor's memory.
  channel_ = JsonLinesChannel(out[0], in[1], ChannelLimits{256u << 20, 256});
  return ok_status();
}

std::string OracleClient::exit_account() {
  // Give a dying oracle a moment to be reaped, so that its exit (or failed start) can be reported.
  for (int i = 0; i < 100 && job_ && !job_->finished(); ++i) usleep(10000);
  std::string tail = log_tail();
  std::string how = "stopped answering";
  if (job_ && job_->finished()) {
    auto outcome = job_->wait();
    job_.reset();
    using S = sandbox::Outcome::Status;
    if (outcome.status == S::launch_failed)
      how = "could not start (" + outcome.launch_error + ")";
    else if (outcome.memory_limit_hit)
      how = "ran out of its memory limit";
    else if (outcome.status == S::signaled)
      how = "was killed by signal " + std::to_string(outcome.signal);
    else if (outcome.status == S::exited)
      how = "exited with status " + std::to_string(outcome.exit_code);
    if (tail.empty()) tail = outcome.stderr_text + outcome.stdout_text;
  }
  stop();
  if (tail.find("No module named 'torch'") != std::string::npos)
    return "the oracle's interpreter " + python_ +
           " has no torch; pass --python or set KFORGE_PYTHON to a python3 with torch";
  return "the oracle (" + python_ + ") " + how + (tail.empty() ? "" : "; its log ends with:\n" + tail);
}

Result<nlohmann::json> OracleClient::request(const nlohmann::json& req, double timeout_s) {
  if (!job_) {
    if (auto st = start(); !st.ok()) return st.error();
  }
  if (auto st = channel_.send(req); !st.ok()) return make_error("oracle.harness", exit_account());
  auto j = channel_.receive(now_s() + timeout_s);
  if (!j.ok()) {
    const std::string& code = j.error().code;
    if (code == "channel.timeout") {
      stop();
      return make_error("oracle.harness", "the oracle did not answer '" + req.value("op", "") + "' within " +
                                              std::to_string(static_cast<int>(timeout_s)) + " s; it was restarted");
    }
    if (code == "channel.closed" || code == "channel.io") return make_error("oracle.harness", exit_account());
    stop();
    return make_error("oracle.harness", "the oracle sent an unreadable response (" + j.error().message + ")");
  }
  if (!j->value("ok", false)) {
    std::string kind = j->value("kind", "harness");
    std::string msg = j->value("error", "unknown oracle error");
    if (kind != "problem" && j->contains("traceback") && (*j)["traceback"].is_string())
      msg += "\n" + (*j)["traceback"].get<std::string>();
    return make_error(kind == "problem"     ? "oracle.problem"
                      : kind == "candidate" ? "oracle.candidate"
                                            : "oracle.harness",
                      msg);
  }
  return std::move(*j);
}

}  // namespace kf::eval
