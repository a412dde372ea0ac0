#pragma once
// The one corpus writer: appends typed records durably (one write + fsync each) to one corpus file of a
// run folder, and writes companion files (replies, sources). Thread-safe.
#include <memory>
#include <mutex>
#include <string>

#include "core/result.h"
#include "corpus/record.h"

namespace kf::corpus {

class Writer {
 public:
  // Appends to DIR/file_name (evaluations.jsonl, or a shard's file), creating DIR when missing. The writer
  // holds an exclusive lock on the file while it lives: a second writer of the same file (the same shard
  // started twice, two unsharded runs of one folder) is refused, and opening changes nothing else on disk.
  // Before the first append, a torn last record left by a killed writer (or a full disk) is cut off: its
  // bytes are kept in DIR/torn/<file>.<time>.fragment and the file ends with its last whole record again.
  // `wait_s`: how long a busy file is waited for before the refusal (a requeued Slurm task may start while
  // the previous run of its shard still records what was in flight after SIGTERM).
  static Result<std::unique_ptr<Writer>> open(const std::string& dir,
                                              const std::string& file_name = "evaluations.jsonl", double wait_s = 0);
  // Secrets are redacted from the serialized record before it is written (model text can quote anything).
  Status append(const Record& record);
  // Writes a companion file atomically (creating DIR/SUBDIR when missing); returns its path relative to DIR.
  Result<std::string> write_companion(const std::string& subdir, const std::string& name, const std::string& text);
  const std::string& dir() const { return dir_; }
  const std::string& file_name() const { return file_; }
  ~Writer();
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

 private:
  Writer(std::string dir, std::string file, int lock_fd)
      : dir_(std::move(dir)), file_(std::move(file)), lock_fd_(lock_fd) {}
  Status repair_torn_tail();  // with mu_ held
  std::string dir_, file_;
  int lock_fd_ = -1;
  bool tail_checked_ = false;
  std::mutex mu_;
};

}  // namespace kf::corpus
