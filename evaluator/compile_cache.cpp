#include "evaluator/compile_cache.h"

#include "core/files.h"
#include "core/hash.h"

namespace kf::eval {

namespace fs = std::filesystem;

std::optional<CompileCacheEntry> CompileCacheSlot::lookup(std::initializer_list<std::string> built) const {
  auto entry = CompileCacheEntry::read(dir_);
  if (!entry || !entry->ok()) return entry;
  for (const auto& name : built)
    if (!fs::exists(file(name))) return std::nullopt;
  return entry;
}

std::optional<Reason> CompileCacheSlot::store_file(const fs::path& from, const std::string& name) const {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  const fs::path tmp = file(name + unique_temp_suffix());
  fs::copy_file(from, tmp, fs::copy_options::overwrite_existing, ec);
  if (!ec) fs::rename(tmp, file(name), ec);
  if (!ec) return std::nullopt;
  std::error_code ignored;
  fs::remove(tmp, ignored);
  return unwritable();
}

std::optional<Reason> CompileCacheSlot::store_text(const std::string& name, const std::string& text) const {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (write_file_atomic(file(name).string(), text).ok()) return std::nullopt;
  return unwritable();
}

bool CompileCacheSlot::store_entry(const CompileCacheEntry& entry) const { return entry.write(dir_); }

Reason CompileCacheSlot::unwritable() const {
  return {"harness.cache",
          "cannot write to the compile cache " + dir_.string() + " (set --cache-dir to a writable folder)"};
}

CompileCacheSlot CompileCache::slot(const std::string& key_material) const {
  const std::string key = sha256_hex(key_material);
  return CompileCacheSlot(root_ / key.substr(0, 2) / key);
}

fs::path CompileCache::pch_dir(const std::string& key_material) const {
  return root_ / "pch" / sha256_hex(key_material);
}

}  // namespace kf::eval
