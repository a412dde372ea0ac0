#pragma once
// The process exit codes every kforge command uses (docs list them per command).
namespace kf {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;  // the command ran; its subject failed (e.g. a kernel is incorrect)
inline constexpr int kExitUsage = 2;    // bad usage or bad input
inline constexpr int kExitHarness = 3;  // kforge itself could not do the job

}  // namespace kf
