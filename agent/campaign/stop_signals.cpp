#include "agent/campaign/stop_signals.h"

#include <signal.h>
#include <sys/time.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstring>

namespace kf::agent {
namespace {

std::atomic<int> g_signals{0};
std::atomic<bool> g_sigterm{false};
double g_deadline_s = 25;
StopSignals::Notices g_notices{};
struct sigaction g_old_int {
}, g_old_term{}, g_old_alarm{};

void say(const char* text, size_t n) {
  ssize_t ignored = ::write(STDERR_FILENO, text, n);
  (void)ignored;
}
#define KF_SAY(literal) say(literal, sizeof(literal) - 1)
void say(const char* text) { say(text, std::strlen(text)); }

void on_signal(int sig) {
  const bool term = sig == SIGTERM;
  if (g_signals.fetch_add(1) >= 1) {
    if (term)
      KF_SAY("\nkforge: second SIGTERM, aborting now (rerun the same command to resume)\n");
    else
      KF_SAY("\nkforge: second interrupt, aborting now (rerun the same command to resume)\n");
    ::_exit(g_sigterm.load() || term ? 143 : 130);
  }
  if (!term) {
    say(g_notices.interrupt);
    return;
  }
  g_sigterm = true;
  say(g_notices.terminate);
  itimerval t{};
  t.it_value.tv_sec = static_cast<time_t>(g_deadline_s);
  t.it_value.tv_usec = static_cast<suseconds_t>((g_deadline_s - std::floor(g_deadline_s)) * 1e6);
  if (t.it_value.tv_sec == 0 && t.it_value.tv_usec == 0) t.it_value.tv_usec = 1;
  ::setitimer(ITIMER_REAL, &t, nullptr);
}

void on_deadline(int) {
  KF_SAY(
      "\nkforge: SIGTERM deadline reached with work still in flight, aborting now (rerun the same command to "
      "resume; replies that arrived are reused)\n");
  ::_exit(143);
}

}  // namespace

const StopSignals::Notices StopSignals::kCampaign{
    "\nkforge: interrupt: finishing what is in flight, no new model calls (Ctrl-C again aborts)\n",
    "\nkforge: SIGTERM: no new model calls; recording the replies that arrived and the evaluations in flight before "
    "the deadline (a second SIGTERM aborts)\n"};

StopSignals::StopSignals(double sigterm_deadline_s, Notices notices) {
  g_notices = notices;
  g_signals = 0;
  g_sigterm = false;
  g_deadline_s = sigterm_deadline_s > 0 ? sigterm_deadline_s : 0;
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGINT, &sa, &g_old_int);
  ::sigaction(SIGTERM, &sa, &g_old_term);
  struct sigaction al {};
  al.sa_handler = on_deadline;
  sigemptyset(&al.sa_mask);
  ::sigaction(SIGALRM, &al, &g_old_alarm);
}

StopSignals::~StopSignals() {
  ::sigaction(SIGINT, &g_old_int, nullptr);
  ::sigaction(SIGTERM, &g_old_term, nullptr);
  // The deadline still holds while kforge shuts down; it ends with the process.
}

bool StopSignals::requested() { return g_signals.load() > 0; }
bool StopSignals::terminated() { return g_sigterm.load(); }

}  // namespace kf::agent
