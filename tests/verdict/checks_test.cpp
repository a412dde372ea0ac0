// The checks' JSON both ways: what the evaluator writes reads back to the same text, a recorded object's
// unknown and odd fields are written back as they were, and the parts phases share are typed.
#include <gtest/gtest.h>

#include "verdict/checks.h"

using kf::eval::Checks;

namespace {

// The shape of an evaluated kf_forward candidate's checks (a host evaluation, abridged).
nlohmann::json evaluated() {
  return nlohmann::json::parse(R"json({
    "call_limit_s": 10.0,
    "input_generator": null,
    "phases_s": {"load": 0.01, "setup": 0.2, "trials": 0.3, "timing": 1.5, "yardsticks": 0.5},
    "precision": "fp32",
    "reduced_precision_allowed": false,
    "runner_frozen_between_rounds": true,
    "runner_tree_empty": true,
    "bytes_moved": 24576,
    "seed": 18446744073709551000,
    "degenerate": ["output0:zeros passes on its own"],
    "tolerances": {"float32": {"atol_scale": 0.001, "rel_l2": 0.0001, "rtol": 0.001}},
    "timing": {
      "slots": 128, "repeatable_inputs": true, "inputs_repeated": false, "repeated_inputs": [],
      "candidate": {"median_ms": 0.5, "p10_ms": 0.4, "p90_ms": 0.6, "min_ms": 0.3, "max_ms": 0.9, "rounds": 12,
                    "calls": 96, "measured_ms": 6.0, "noise": 0.003, "stop": "noise", "calls_per_round": 8,
                    "checked_rounds": 3, "checked_slots": 6, "rounds_log": [[1.0, 0.0, true, 0.1, 0.2]],
                    "round_overhead_ms": 0.05, "calibration_log": [[0.1, 0.0, 0.0]], "channel_rtt_ms": 0.04,
                    "channel_share": 0.01},
      "baseline": {"median_ms": 1.0, "p10_ms": 0.9, "p90_ms": 1.1, "min_ms": 0.8, "max_ms": 1.3, "rounds": 10,
                   "calls": 80, "measured_ms": 10.0, "noise": 0.002, "stop": "noise", "cudnn_tf32": false,
                   "copies_outputs": false, "calls_per_round": 8, "device_checks": [{"before": {}}]},
      "baseline_compile": {"median_ms": 0.7, "p10_ms": 0.6, "p90_ms": 0.8, "mode": "default"}
    },
    "trials": [
      {"trial": 0, "label": "trial 0", "seed": 7, "variant": "own", "call_ms": 0.6,
       "outputs": [{"name": "output0", "dtype": "float32", "rel_l2": 1e-7, "max_abs": 1e-6, "ref_rms": 1.0,
                    "violations": 0, "nan_inf_mismatch": 0, "unwritten": 0, "mismatched_exact": 0,
                    "coverage": 1.0, "trivial": {"zeros": {"rel_l2": 1.0, "distance": 1.0}},
                    "precision": {"error": 1e-7, "ref_error": 1e-8, "ratio": 10.0}}],
       "inputs_modified": []},
      {"trial": 1, "label": "trial 1", "skipped": "its inputs make the reference non-finite"},
      {"trial": -1, "label": "timed round 3 (slot 2, checked at random)", "seed": null, "variant": "own",
       "shapes": {"inputs": [[4, 4]]}, "outputs": [], "inputs_modified": [{"name": "x", "changed": 1}]}
    ]
  })json");
}

}  // namespace

TEST(ChecksJson, AnEvaluationsChecksReadBackToTheSameText) {
  const auto j = evaluated();
  EXPECT_EQ(Checks::from_json(j).to_json().dump(), j.dump());
}

TEST(ChecksJson, AKernelbenchSolutionsChecksReadBackToTheSameText) {
  const auto j = nlohmann::json::parse(R"json({
    "static": {"attribution": {"trusted": false, "why": ["a call"]}, "reference_ops": ["relu"],
               "reference_units": {"relu": 1}, "coverage": {"torch": [], "kernels": ["relu"]}},
    "build": [{"cache_hit": true}], "startup_limit_s": 120.0, "first_call_limit_s": 120.0,
    "custom_kernel_calls": 12, "helper_processes_ended": 0, "replay": {"trusted": true, "calls": 4, "seconds": 1.5},
    "attribution": "trusted", "attribution_basis": "replay", "limit_hit": "call", "roofline_error": "no peaks",
    "device_before": {"clean": true}
  })json");
  const Checks c = Checks::from_json(j);
  ASSERT_TRUE(c.static_check && c.static_check->reference_ops);
  EXPECT_EQ(*c.static_check->reference_ops, std::vector<std::string>{"relu"});
  EXPECT_TRUE(c.static_check->findings.contains("attribution"));
  EXPECT_FALSE(c.static_check->findings.contains("reference_ops"));
  EXPECT_EQ(c.to_json().dump(), j.dump());
  const auto failed = nlohmann::json::parse(R"({"candidate": "src", "static": {"error": "syntax"}})");
  EXPECT_EQ(Checks::from_json(failed).to_json().dump(), failed.dump());
}

TEST(ChecksJson, UnknownFieldsAndFieldsOfAnotherTypeAreKeptAsTheyWere) {
  auto j = evaluated();
  j["from_a_later_kforge"] = {{"x", 1}};
  j["seed"] = "not a number";
  j["timing"]["candidate"]["rounds"] = "twelve";
  j["timing"]["baseline_error"] = 3;
  j["timing"]["later"] = true;
  j["trials"][0]["later"] = {1, 2};
  j["phases_s"]["load"] = "slow";
  const Checks c = Checks::from_json(j);
  EXPECT_FALSE(c.seed);
  EXPECT_FALSE(c.timing->candidate->summary.rounds);
  EXPECT_TRUE(c.phases_s.empty());
  EXPECT_EQ(c.to_json().dump(), j.dump());
  EXPECT_EQ(Checks::from_json(nlohmann::json::array()).to_json(), nlohmann::json::object());
}

TEST(ChecksJson, WhatOnePhaseWritesAnotherReadsTyped) {
  const Checks c = Checks::from_json(evaluated());
  ASSERT_TRUE(c.trials);
  ASSERT_EQ(c.trials->size(), 3u);
  EXPECT_EQ(c.trials->at(0).call_ms, 0.6);
  EXPECT_EQ(c.trials->at(0).seed, 7u);
  EXPECT_EQ(c.trials->at(1).skipped, "its inputs make the reference non-finite");
  EXPECT_FALSE(c.trials->at(2).seed);
  EXPECT_EQ(c.seed, 18446744073709551000u);
  ASSERT_TRUE(c.timing);
  EXPECT_EQ(c.timing->baselines.at("eager").summary.p10_ms, 0.9);
  EXPECT_EQ(c.timing->baselines.at("compile").mode, "default");
  EXPECT_EQ(c.timing->candidate->summary.stop, "noise");
  EXPECT_EQ(c.phases_s.at("timing"), 1.5);
}

TEST(ChecksJson, PartsAreMadeWhenAPhaseFirstWritesThem) {
  Checks c;
  EXPECT_EQ(c.to_json(), nlohmann::json::object());
  c.timing_record().floor_ms = 0.25;
  c.trial_records().emplace_back();
  const auto j = c.to_json();
  EXPECT_EQ(j["timing"], nlohmann::json({{"floor_ms", 0.25}}));
  EXPECT_EQ(j["trials"][0]["seed"], nullptr);
  EXPECT_EQ(j["trials"][0]["outputs"], nlohmann::json::array());
}
