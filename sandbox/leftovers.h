#pragma once
// What kforge leaves on the machine while it runs — a control group per job, private folders for the
// evaluator (/dev/shm/kforge-eval-*, kforge-oracle-*), a mount point per job — and how none of it outlives
// kforge: each name carries its owner (the kforge process, by PID and start time); the guardian
// (guardian.h) removes what a dying kforge still had, and every kforge command first sweeps what owners that
// are gone left (also thawing and killing frozen jobs). See docs/sandbox.md, "Nothing left behind".
#include <string>

#include "core/result.h"

namespace kf::sandbox {

// This process as owner in names: "<pid>.<start time in clock ticks>" (a PID alone may be reused).
const std::string& owner_tag();
// Whether the owner a name carries after its prefix ("<pid>.<start>-…", or the older "<pid>-…") is gone.
bool owner_gone(const std::string& rest_of_name);

// Creates ROOT/PREFIX-<owner>-XXXXXX (mode 0700), guarded: removed by the guardian when kforge dies, and
// by the next sweep when the guardian died too.
Result<std::string> make_owned_folder(const std::string& root, const std::string& prefix);
// Removes a folder make_owned_folder created (and stops guarding it).
void remove_owned_folder(const std::string& path);

// Thaws, kills and removes the job groups of kforge processes that are gone, and removes their mount points
// and private folders (in /dev/shm and the temporary folder). Cheap when there is nothing to take back.
void sweep_leftovers();

}  // namespace kf::sandbox
