#include "evaluator/oracle_client.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "evaluator/process.h"

namespace kf::eval {

OracleClient::OracleClient(std::string python, std::string script, std::string log_path)
    : python_(std::move(python)), script_(std::move(script)), log_path_(std::move(log_path)) {}

OracleClient::~OracleClient() { stop(); }

void OracleClient::stop() {
  if (to_child_ >= 0) close(to_child_);
  if (from_child_ >= 0) close(from_child_);
  to_child_ = from_child_ = -1;
  if (pid_ > 0) kill_tree(pid_);
  pid_ = -1;
  pending_.clear();
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
  ChildSpec spec;
  spec.argv = {python_, "-u", script_};
  spec.env = environment_with({{"PYTHONUNBUFFERED", "1"}, {"PYTHONDONTWRITEBYTECODE", "1"}});
  spec.fds = {{in[0], 0}, {out[1], 1}};
  spec.stderr_file = log_path_;
  auto pid = spawn(spec);
  close(in[0]);
  close(out[1]);
  if (!pid.ok()) {
    close(in[1]);
    close(out[0]);
    return pid.error();
  }
  pid_ = *pid;
  to_child_ = in[1];
  from_child_ = out[0];
  return ok_status();
}

Result<nlohmann::json> OracleClient::request(const nlohmann::json& req, double timeout_s) {
  if (pid_ < 0) {
    if (auto st = start(); !st.ok()) return st.error();
  }
  std::string line = req.dump() + "\n";
  size_t off = 0;
  while (off < line.size()) {
    ssize_t n = write(to_child_, line.data() + off, line.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      std::string tail = log_tail();
      stop();
      return make_error("oracle.harness", "the oracle (" + python_ + " " + script_ +
                                              ") is not accepting requests; its log ends with:\n" + tail);
    }
    off += static_cast<size_t>(n);
  }
  double t0 = now_s();
  char buf[65536];
  for (;;) {
    auto nl = pending_.find('\n');
    if (nl != std::string::npos) {
      std::string resp = pending_.substr(0, nl);
      pending_.erase(0, nl + 1);
      auto j = nlohmann::json::parse(resp, nullptr, false);
      if (j.is_discarded() || !j.is_object())
        return make_error("oracle.harness", "the oracle sent an unreadable response: " + resp.substr(0, 300));
      if (!j.value("ok", false)) {
        std::string kind = j.value("kind", "harness");
        std::string msg = j.value("error", "unknown oracle error");
        if (kind != "problem" && j.contains("traceback")) msg += "\n" + j["traceback"].get<std::string>();
        return make_error(kind == "problem" ? "oracle.problem" : "oracle.harness", msg);
      }
      return j;
    }
    double left = timeout_s - (now_s() - t0);
    if (left <= 0) {
      stop();
      return make_error("oracle.harness", "the oracle did not answer '" + req.value("op", "") + "' within " +
                                              std::to_string(static_cast<int>(timeout_s)) + " s; it was restarted");
    }
    pollfd p{from_child_, POLLIN, 0};
    int r = poll(&p, 1, static_cast<int>(std::min(left, 1.0) * 1000) + 1);
    if (r < 0 && errno != EINTR) break;
    if (r <= 0) continue;
    ssize_t n = read(from_child_, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      std::string tail = log_tail();
      stop();
      if (tail.find("No module named 'torch'") != std::string::npos)
        return make_error("oracle.harness", "the oracle's interpreter " + python_ +
                                                " has no torch; pass --python or set KFORGE_PYTHON to a python3 with torch");
      return make_error("oracle.harness", "the oracle (" + python_ + ") exited; its log ends with:\n" + tail);
    }
    pending_.append(buf, static_cast<size_t>(n));
  }
  stop();
  return make_error("oracle.harness", "lost the connection to the oracle");
}

}  // namespace kf::eval
