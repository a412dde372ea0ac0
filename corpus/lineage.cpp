#include "corpus/lineage.h"

namespace kf::corpus {
namespace {

using json = nlohmann::json;

json ids_json(const std::vector<RecordId>& ids) {
  json out = json::array();
  for (const auto& id : ids) out.push_back({{"sample", id.sample}, {"turn", id.turn}});
  return out;
}

bool is_int(const json& j) { return j.is_number_integer() || j.is_number_unsigned(); }

// nullopt and `error` set when the list is damaged.
std::optional<std::vector<RecordId>> ids_from(const json& j, const char* key, std::string& error) {
  std::vector<RecordId> out;
  const std::string where = std::string("lineage.") + key;
  if (!j.contains(key) || j[key].is_null()) return out;
  if (!j[key].is_array()) {
    error = where + " is not an array";
    return std::nullopt;
  }
  for (size_t i = 0; i < j[key].size(); ++i) {
    const json& id = j[key][i];
    const std::string at = where + "[" + std::to_string(i) + "]";
    if (!id.is_object() || !id.contains("sample") || !id.contains("turn") || !is_int(id["sample"]) ||
        !is_int(id["turn"])) {
      error = at + " is not an object with integer sample and turn";
      return std::nullopt;
    }
    out.push_back({id["sample"].get<int>(), id["turn"].get<int>()});
  }
  return out;
}

}  // namespace

json Lineage::to_json() const {
  json j = {{"strategy", strategy}, {"round", round}, {"parents", ids_json(parents)}};
  j["island"] = island ? json(*island) : json(nullptr);
  if (!inspirations.empty()) j["inspirations"] = ids_json(inspirations);
  return j;
}

Result<Lineage> Lineage::from_json(const json& j) {
  if (!j.is_object()) return make_error("corpus.record", "lineage is not an object");
  Lineage l;
  if (!j.contains("strategy") || !j["strategy"].is_string())
    return make_error("corpus.record", "lineage.strategy is missing or not a string");
  l.strategy = j["strategy"].get<std::string>();
  if (!j.contains("round") || !is_int(j["round"]))
    return make_error("corpus.record", "lineage.round is missing or not an integer");
  l.round = j["round"].get<int>();
  if (j.contains("island") && !j["island"].is_null()) {
    if (!is_int(j["island"])) return make_error("corpus.record", "lineage.island is not an integer");
    l.island = j["island"].get<int>();
  }
  std::string error;
  auto parents = ids_from(j, "parents", error);
  if (!parents) return make_error("corpus.record", error);
  auto inspirations = ids_from(j, "inspirations", error);
  if (!inspirations) return make_error("corpus.record", error);
  l.parents = std::move(*parents);
  l.inspirations = std::move(*inspirations);
  return l;
}

}  // namespace kf::corpus
