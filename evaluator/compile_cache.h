#pragma once
// The compile cache's layout and protocol: CACHE_DIR/<key[0:2]>/<key>/ holds one compile's entry (result.json,
// compile_cache_entry.h) beside the files it built, where key = sha256 of everything the compile depends on. A
// lookup answers only with an entry that can be used as it is: a failure, or a success whose files are all
// there. A store puts each built file in place by a rename (compiles of one key that finish together each leave
// a whole, identical file), then the entry. The three compilers (a .cu/.cpp candidate, a load_inline extension,
// a KernelBench solution) use it alike.
#include <filesystem>
#include <initializer_list>
#include <optional>
#include <string>

#include "evaluator/compile_cache_entry.h"
#include "verdict/verdict.h"

namespace kf::eval {

// One key's folder in the cache.
class CompileCacheSlot {
 public:
  explicit CompileCacheSlot(std::filesystem::path dir) : dir_(std::move(dir)) {}
  const std::filesystem::path& dir() const { return dir_; }
  // A file of the slot, by name.
  std::filesystem::path file(const std::string& name) const { return dir_ / name; }

  // The entry when it can be used: a failure, or a success whose `built` files (names in the slot) all exist.
  std::optional<CompileCacheEntry> lookup(std::initializer_list<std::string> built) const;
  // Copies `from` into the slot as `name` (a temporary, then a rename). The reason (harness.cache) when it could not.
  std::optional<Reason> store_file(const std::filesystem::path& from, const std::string& name) const;
  // Writes `text` into the slot as `name`, atomically. The reason (harness.cache) when it could not.
  std::optional<Reason> store_text(const std::string& name, const std::string& text) const;
  // Writes the entry (result.json); false when it could not.
  bool store_entry(const CompileCacheEntry& entry) const;
  // Why a store failed, as a compile reports it.
  Reason unwritable() const;

 private:
  std::filesystem::path dir_;
};

class CompileCache {
 public:
  explicit CompileCache(std::string root) : root_(std::move(root)) {}
  // The slot of the compile whose inputs are `key_material` (hashed here).
  CompileCacheSlot slot(const std::string& key_material) const;
  // The folder of a precompiled header built from `key_material`: CACHE_DIR/pch/<sha256>.
  std::filesystem::path pch_dir(const std::string& key_material) const;

 private:
  std::filesystem::path root_;
};

}  // namespace kf::eval
