#pragma once
// How `kforge run` stops on a signal. Ctrl-C (SIGINT) and SIGTERM (Slurm's preemption and time limit, `kill`)
// both stop new model calls at once and let what is in flight finish: replies that arrived are recorded
// and evaluations in progress are judged and recorded. After SIGTERM that gets a deadline that fits
// Slurm's default grace of 30 s before its SIGKILL; at the deadline, or on a second signal, kforge aborts
// (the guardian, sandbox/guardian.h, takes back the jobs still running). Exit codes: 130 after Ctrl-C, 143
// after SIGTERM. docs/campaigns.md, "Stopping".
namespace kf::agent {

class StopSignals {
 public:
  // What the first Ctrl-C and the first SIGTERM print (static text: it is written from the signal handler).
  struct Notices {
    const char* interrupt;
    const char* terminate;
  };
  static const Notices kCampaign;

  // Installs the handlers (restored on destruction). `sigterm_deadline_s`: how long after SIGTERM what is
  // in flight may take before kforge aborts.
  explicit StopSignals(double sigterm_deadline_s, Notices notices = kCampaign);
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  // A stop was asked for (Ctrl-C or SIGTERM): no new model call may be sent.
  static bool requested();
  // The stop came from SIGTERM (exit 143) rather than Ctrl-C (exit 130).
  static bool terminated();
};

}  // namespace kf::agent
