#pragma once
// The record's keys on disk (record.h) and the JSON type Record::from_json requires of each (null is always
// allowed: absent): the one list of them, for readers that scan a line without building the record
// (summary.cpp). record.cpp writes and reads exactly these; tests/corpus/record_fields_test.cpp holds the two
// together. The usage object's keys are token_usage.h's; the verdict's are verdict/verdict.h's.
#include <optional>
#include <span>
#include <string_view>

namespace kf::corpus {

enum class FieldType { string, integer, number, boolean, object, array };

struct Field {
  std::string_view key;
  FieldType type;
};

// Top-level fields.
namespace record_field {
inline constexpr Field schema{"schema", FieldType::integer};
inline constexpr Field kind{"kind", FieldType::string};
inline constexpr Field run_id{"run_id", FieldType::string};
inline constexpr Field session{"session", FieldType::integer};
inline constexpr Field shard{"shard", FieldType::string};
inline constexpr Field config{"config", FieldType::string};
inline constexpr Field provider{"provider", FieldType::string};
inline constexpr Field model{"model", FieldType::string};
inline constexpr Field candidate_format{"candidate_format", FieldType::string};
inline constexpr Field problem{"problem", FieldType::object};
inline constexpr Field sample{"sample", FieldType::integer};
inline constexpr Field turn{"turn", FieldType::integer};
inline constexpr Field lineage{"lineage", FieldType::object};
inline constexpr Field usage{"usage", FieldType::object};
inline constexpr Field cost_usd{"cost_usd", FieldType::number};
inline constexpr Field reply{"reply", FieldType::object};
inline constexpr Field extraction{"extraction", FieldType::string};
inline constexpr Field source{"source", FieldType::object};
inline constexpr Field verdict{"verdict", FieldType::object};
inline constexpr Field feedback{"feedback", FieldType::string};
inline constexpr Field environment{"environment", FieldType::object};
inline constexpr Field evaluator{"evaluator", FieldType::object};
inline constexpr Field started_at{"started_at", FieldType::string};
inline constexpr Field queue_wait_s{"queue_wait_s", FieldType::number};
inline constexpr Field recorded_at{"recorded_at", FieldType::string};
inline constexpr Field error{"error", FieldType::object};
inline constexpr Field reason{"reason", FieldType::string};
inline constexpr Field turns_used{"turns_used", FieldType::integer};
inline constexpr Field best_turn{"best_turn", FieldType::integer};
inline constexpr Field imported{"imported", FieldType::object};
inline constexpr Field claim{"claim", FieldType::object};
inline constexpr Field warnings{"warnings", FieldType::array};
}  // namespace record_field

// Fields of "problem".
namespace problem_field {
inline constexpr Field name{"name", FieldType::string};
inline constexpr Field file_hash{"file_hash", FieldType::string};
inline constexpr Field category{"category", FieldType::string};
inline constexpr Field path{"path", FieldType::string};
}  // namespace problem_field

// The fields of "error" and "claim" that scanners read.
namespace error_field {
inline constexpr Field kind{"kind", FieldType::string};
}  // namespace error_field
namespace claim_field {
inline constexpr Field correct{"correct", FieldType::boolean};
}  // namespace claim_field

inline constexpr Field kRecordFields[] = {
    record_field::schema,     record_field::kind,         record_field::run_id,
    record_field::session,    record_field::shard,        record_field::config,
    record_field::provider,   record_field::model,        record_field::candidate_format,
    record_field::problem,    record_field::sample,       record_field::turn,
    record_field::usage,      record_field::cost_usd,     record_field::reply,
    record_field::extraction, record_field::source,       record_field::verdict,
    record_field::feedback,   record_field::environment,  record_field::evaluator,
    record_field::started_at, record_field::queue_wait_s, record_field::recorded_at,
    record_field::error,      record_field::reason,       record_field::turns_used,
    record_field::best_turn,  record_field::imported,     record_field::claim,
    record_field::warnings,   record_field::lineage};
inline constexpr Field kProblemFields[] = {problem_field::name, problem_field::file_hash, problem_field::category,
                                           problem_field::path};

// The type of `key` among `fields`; nullopt when it is none of them.
constexpr std::optional<FieldType> field_type(std::span<const Field> fields, std::string_view key) {
  for (const auto& f : fields)
    if (f.key == key) return f.type;
  return std::nullopt;
}

}  // namespace kf::corpus
