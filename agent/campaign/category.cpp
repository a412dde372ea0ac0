#include "agent/campaign/category.h"

#include <algorithm>
#include <cctype>
#include <regex>
#include <utility>

namespace kf::agent {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// Ordered: the first rule whose any keyword appears wins, so the more specific rules come first
// (conv_transpose before conv, pooling before the "max" of reductions, cumsum before sum).
const std::vector<std::pair<std::string, std::vector<std::string>>>& name_rules() {
  static const std::vector<std::pair<std::string, std::vector<std::string>>> rules = {
      {"recommender", {"dlrm", "recommend", "embeddingbag", "embedding_bag", "feature_interaction", "interaction"}},
      {"attention", {"attention", "sdpa"}},
      {"conv-transposed", {"conv_transpose", "convtranspose", "transposed_conv", "deconv"}},
      {"conv", {"conv"}},
      {"loss", {"loss"}},
      {"scan", {"cumsum", "cumprod", "scan", "prefix_sum"}},
      {"pooling", {"pool"}},
      {"norm", {"norm"}},
      {"matmul",
       {"matmul", "matrix_multiplication", "matrix_vector", "matrix_scalar", "gemm", "gemv", "bmm", "linear"}},
      {"reduction", {"reduction", "argmax", "argmin", "reduce", "sum_", "mean_", "max_over", "min_over"}},
      {"activation",
       {"relu", "sigmoid", "tanh", "softmax", "swish", "gelu", "selu", "softplus", "softsign", "elu", "hardtanh",
        "mish", "silu", "activation"}},
  };
  return rules;
}

// Torch calls that identify a category when the file name says nothing.
const std::vector<std::pair<std::string, std::vector<std::string>>>& source_rules() {
  static const std::vector<std::pair<std::string, std::vector<std::string>>> rules = {
      {"recommender", {"embeddingbag", "embedding_bag"}},
      {"attention", {"scaled_dot_product_attention", "multiheadattention"}},
      {"conv-transposed", {"convtranspose", "conv_transpose"}},
      {"conv", {"nn.conv", "f.conv", "torch.conv"}},
      {"loss", {"loss("}},
      {"scan", {"cumsum", "cumprod"}},
      {"pooling", {"pool"}},
      {"norm", {"batchnorm", "layernorm", "groupnorm", "instancenorm", "layer_norm", "rmsnorm", ".norm("}},
      {"matmul", {"matmul", "torch.mm", "torch.bmm", "nn.linear", "@"}},
      {"activation", {"relu", "sigmoid", "tanh", "softmax", "gelu", "elu", "softplus"}},
      {"reduction", {"argmax", "argmin", "torch.sum", "torch.mean", "torch.max", "torch.min", ".sum(", ".mean("}},
  };
  return rules;
}

}  // namespace

const std::vector<std::string>& known_categories() {
  static const std::vector<std::string> c = {"matmul", "conv",      "conv-transposed", "activation",
                                             "norm",   "pooling",   "reduction",       "loss",
                                             "scan",   "attention", "recommender",     "other"};
  return c;
}

std::string categorize_problem(const std::string& file_name, const std::string& source) {
  static const std::regex kOverride(R"((^|\n)KFORGE_CATEGORY\s*=\s*["']([A-Za-z_-]+)["'])");
  std::smatch m;
  if (std::regex_search(source, m, kOverride)) return lower(m[2].str());

  std::string name = lower(file_name);
  if (auto slash = name.find_last_of('/'); slash != std::string::npos) name = name.substr(slash + 1);
  if (name.size() > 3 && name.compare(name.size() - 3, 3, ".py") == 0) name.resize(name.size() - 3);
  name += "_";  // lets "sum_" and friends match at the end of a name
  for (const auto& [category, keys] : name_rules())
    for (const auto& k : keys)
      if (name.find(k) != std::string::npos) return category;

  // Only the forward() body and module construction matter; a lower-cased scan of the whole file is
  // close enough and keeps this free of a Python parser.
  std::string src = lower(source);
  for (const auto& [category, keys] : source_rules())
    for (const auto& k : keys)
      if (src.find(k) != std::string::npos) return category;
  return "other";
}

}  // namespace kf::agent
